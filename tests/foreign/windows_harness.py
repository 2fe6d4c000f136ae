"""`python -m harness` with what Windows lacks taken away, on Linux: run it as
`python tests/foreign/windows_harness.py ARGS` (with PYTHONIOENCODING=cp1252 for a Windows pipe).

Hidden from the harness process: the fcntl and resource modules, os.fork, os.forkpty, os.getsid,
os.killpg and os.setsid, signal.SIGUSR1 and signal.SIGKILL, and the fork and forkserver start
methods; platform.system() says "Windows". What this cannot imitate: sys.platform, paths and the
Windows process model (no Job
Objects, no CREATE_NEW_PROCESS_GROUP, no venv launcher): those wait for a real Windows run.
"""

import platform
import signal
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "harness" / "boot")]

import psutil  # noqa: E402  (on Linux it imports resource, which Windows' psutil does not need)

# psutil ends processes with TerminateProcess on Windows; on Linux with os.kill(pid, SIGKILL): it
# keeps a signal module of its own, so that hiding SIGKILL below hides it from the harness alone.
psutil.signal = types.SimpleNamespace(**vars(signal))

import dlp_windows  # noqa: E402

dlp_windows.spawn_only()
dlp_windows.hide(
    modules=("fcntl", "resource"),
    os_names=("fork", "forkpty", "getsid", "killpg", "setsid"),
    signal_names=("SIGUSR1", "SIGKILL"),
)

platform.system = lambda: "Windows"  # the profiles run natively here: the windows one, not under Wine

from harness.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
