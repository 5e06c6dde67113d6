#!/bin/bash
if [ -f /etc/passwd ]; then
    echo "exists"
echo done
