"""Writes bytes that are not UTF-8 and no final newline, then fails."""

import os

os.write(1, b"caf\xe9 \xff\xfe partial line without newline")
raise SystemExit(3)
