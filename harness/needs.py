"""Whether this machine has what a case needs; a missing need makes its runs `skipped`.

Under Wine a need is the Windows environment's, not this machine's: what Wine cannot give (each
gap observed here) is missing there whatever this machine has.
"""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys

_CUDA_PROBE = "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"
_DISTRIBUTED_PROBE = "import sys, torch.distributed as d; sys.exit(0 if d.is_available() else 1)"


@functools.cache
def _probe(code: str) -> bool:
    # In a child process: importing torch here would cost seconds and CUDA state in the harness.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0


def _cuda_available() -> bool:
    return _probe(_CUDA_PROBE)


def _distributed_available() -> bool:
    return _probe(_DISTRIBUTED_PROBE)


def _opencv_available() -> bool:
    return importlib.util.find_spec("cv2") is not None


def _windows_opencv_available() -> bool:
    from harness.run import wine

    return (wine.root() / "site" / "cv2").is_dir()


_CHECKS = {
    "cuda": (_cuda_available, "no usable CUDA GPU (torch.cuda.is_available() is False)"),
    "opencv": (_opencv_available, "OpenCV is not installed (no module cv2)"),
    "distributed": (_distributed_available, "torch.distributed is not available in this torch build"),
}
# Under Wine: what the Windows environment cannot give, however this machine is equipped.
_WINE_GAPS = {
    "cuda": "no GPU under Wine: the Windows torch wheel of the environment is its CPU build",
    "distributed": (
        "torch.distributed's gloo collectives never return under Wine 8 (observed here: "
        "init_process_group succeeds, then a 1-element all_reduce between 2 ranks waits past 100 s); "
        "this case waits for a run on Windows"
    ),
}
_CHECKS_UNDER_WINE = {
    "opencv": (_windows_opencv_available, "the Windows environment has no OpenCV (cv2): nox -s windows-env"),
}


def missing(needs: tuple[str, ...], under_wine: bool = False) -> str:
    """The reasons, joined, why `needs` are not met here (under Wine: in the Windows environment);
    empty when they all are."""
    if under_wine:
        reasons = [_WINE_GAPS[need] for need in needs if need in _WINE_GAPS]
        checks = [_CHECKS_UNDER_WINE[need] for need in needs if need in _CHECKS_UNDER_WINE]
    else:
        reasons, checks = [], [_CHECKS[need] for need in needs]
    reasons += [reason for check, reason in checks if not check()]
    return "; ".join(reasons)
