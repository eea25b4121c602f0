#!/usr/bin/env python3
"""Runs a command and inverts its success: exit 0 iff the command failed
without crashing (a signal counts as a crash and stays a failure)."""
import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: not COMMAND [ARGS...]")
rc = subprocess.call(sys.argv[1:])
sys.exit(0 if rc > 0 else 1)
