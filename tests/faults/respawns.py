"""No `if __name__ == "__main__":` guard around code that starts worker processes running this same
file, as a frozen application without multiprocessing.freeze_support() does on Windows: every
worker starts two more, without end."""

import subprocess
import sys
import time

workers = [subprocess.Popen([sys.executable, __file__]) for _ in range(2)]
time.sleep(60)
