#!/bin/bash
echo "hello
name=world
