"""Whether this machine has what a case needs; a missing need makes its runs `skipped`."""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys

_CUDA_PROBE = "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"


@functools.cache
def _cuda_available() -> bool:
    # In a child process: importing torch here would cost seconds and CUDA state in the harness.
    probe = subprocess.run([sys.executable, "-c", _CUDA_PROBE], capture_output=True, timeout=120)
    return probe.returncode == 0


def _opencv_available() -> bool:
    return importlib.util.find_spec("cv2") is not None


_CHECKS = {
    "cuda": (_cuda_available, "no usable CUDA GPU (torch.cuda.is_available() is False)"),
    "opencv": (_opencv_available, "OpenCV is not installed (no module cv2)"),
}


def missing(needs: tuple[str, ...]) -> str:
    """The reasons, joined, why `needs` are not met here; empty when they all are."""
    reasons = [reason for need in needs for check, reason in [_CHECKS[need]] if not check()]
    return "; ".join(reasons)
