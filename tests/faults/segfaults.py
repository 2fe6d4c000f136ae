"""Dies by SIGSEGV, sent to itself."""

import os
import signal

os.kill(os.getpid(), signal.SIGSEGV)
