"""Writes output as fast as it can, without end."""

import sys

line = "x" * 1023 + "\n"
while True:
    sys.stdout.write(line * 1024)
