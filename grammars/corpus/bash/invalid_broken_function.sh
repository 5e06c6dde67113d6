#!/bin/bash
greet() {
    echo "hi"
