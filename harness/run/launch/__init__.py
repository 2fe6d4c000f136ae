"""How a run's interpreter is started: one launcher per way of running, chosen once per profile.

As CPython's `multiprocessing` has one `Popen` interface and a family behind it (`popen_fork`,
`popen_spawn_posix`, `popen_spawn_win32`), the runner (harness/run/runner.py) has one `Launcher`
interface (base.py) and one implementation per way of running:

- `native` (native.py): this machine's own interpreter, the one running the harness;
- `wine` (wine.py): the official Windows CPython and torch's Windows wheels, under Wine;
- `chroot` (chroot.py): another Linux interpreter, Debian's in a root that `observe-chroot` made,
  chosen on the command line (`run --chroot ROOT`) instead of the profile's own way.

A launcher says whether it can run here and what a case's needs lack there, starts one run
(`Launched`: its processes, their stacks, its end), says what of a failed run was its own doing
(`fault`: harness/verdict.py `report` decides what follows) and how a run was made (`How`, recorded with every
result). Nothing outside this package asks which launcher it is (tests/unit/test_layering.py).
"""

from __future__ import annotations

import platform
from pathlib import Path

from . import chroot, native, wine, wine_env
from .base import BOOT_DIR, CHROOT, NATIVE, WINE, How, Launched, Launcher

__all__ = [
    "BOOT_DIR", "CHROOT", "DESCRIBED_AS", "NATIVE", "WINE", "How", "Launched", "Launcher", "caps", "choose",
    "every",
]  # fmt: skip

# How each launcher of another system's binaries begins the description it records with a run
# ("Windows binaries under Wine 8.0: CPython 3.13.2 win_amd64, …"), by its name.
DESCRIBED_AS = {WINE: wine_env.DESCRIPTION_START}


def choose(way: str, system: str, here: str | None = None) -> Launcher:
    """The launcher of a profile whose runs go `way` ("native", or "wine": the Windows binaries
    off Windows) for a platform `system`, on this machine (or on a machine of system `here`)."""
    if way == WINE and (here or platform.system().lower()) != system:
        return wine.WineLauncher(system)
    return native.NativeLauncher()


def caps() -> dict[str, int]:
    """{launcher name: its runs at once} for each launcher that caps them."""
    return {launcher.name: launcher.at_once for launcher in every() if launcher.at_once}


def every() -> list[Launcher]:
    """One of each launcher: what the judge scrubs names every way's paths."""
    return [native.NativeLauncher(), wine.WineLauncher()]


def in_chroot(root: Path) -> Launcher:
    """The launcher of the interpreter in the root that `observe-chroot` made at `root`."""
    return chroot.ChrootLauncher(root)
