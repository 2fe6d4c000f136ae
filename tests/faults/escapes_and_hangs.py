"""Hangs, with a grandchild that started its own session and double-forked: both must be ended."""

import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print("escaped", flush=True)
        time.sleep(600)
    os._exit(0)
time.sleep(600)
