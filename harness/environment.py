"""The environment a run happened in, read from package metadata (no heavy imports)."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
from pathlib import Path

_OPENCV_DISTRIBUTIONS = (
    "opencv-python",
    "opencv-python-headless",
    "opencv-contrib-python",
    "opencv-contrib-python-headless",
)


def package_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def opencv_version() -> str | None:
    for distribution in _OPENCV_DISTRIBUTIONS:
        version = package_version(distribution)
        if version:
            return version
    return None


def describe() -> dict:
    """OS, Python, package versions and CPU count: what a result depends on."""
    return {
        "os": platform.system().lower(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "torch": package_version("torch"),
        "numpy": package_version("numpy"),
        "opencv": opencv_version(),
        "cpu_count": os.cpu_count(),
        "dev_shm_checked": os.path.isdir("/dev/shm"),  # leftovers in /dev/shm are found only where it exists
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def results_filename(environment: dict) -> str:
    """e.g. linux-py3.11-torch2.13.0.json; the torch local build tag (+cpu) is left out."""
    python = ".".join(environment["python"].split(".")[:2])
    torch = (environment.get("torch") or "none").split("+")[0]
    return f"{environment['os']}-py{python}-torch{torch}.json"


def default_results_path(results_dir: Path, environment: dict | None = None) -> Path:
    return results_dir / results_filename(environment or describe())
