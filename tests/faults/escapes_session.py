"""A grandchild that starts its own session and double-forks, then sleeps: it must not outlive the run."""

import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
time.sleep(0.5)
print("parent done")
