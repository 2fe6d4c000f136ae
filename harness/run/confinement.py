"""What the runs' Linux confinements (a private /dev/shm: private_shm.py; a memory cgroup:
memory_cgroup.py) share: asked for or not, a profile that stands for another system, this machine."""

from __future__ import annotations

from collections.abc import Callable


def unavailable(
    size_mb: float | None, system: str, elsewhere: Callable[[], str], here: Callable[[], str]
) -> str:
    """Why a run for a platform `system` cannot have a confinement of `size_mb`: `elsewhere()` for a
    profile of another system than Linux, `here()` for this machine (its own reason, or ""); ""
    where none is asked for."""
    if size_mb is None:
        return ""
    return elsewhere() if system != "linux" else here()
