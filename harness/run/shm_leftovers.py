"""Shared-memory files (/dev/shm) that a run leaves behind: found, recorded and removed.

POSIX shared memory and named semaphores are files in /dev/shm on Linux. PyTorch's `file_system`
sharing strategy names its segments `torch_<pid>_...` and relies on its `torch_shm_manager` to
remove them; multiprocessing's named semaphores (`sem.mp-...`, kept under spawn and forkserver)
and `SharedMemory` blocks (`psm_...`) rely on the resource tracker. A run that is killed, or
whose helpers are, leaves them behind, taking RAM until the machine reboots.

Other runs (and other programs) create entries in the same folder at the same time, so an entry
is the run's only when it is new since the run started and the run showed it was its own: a
process of the run had it mapped or open when last looked at, or it is a PyTorch segment named
after a process of the run that no longer exists (a live one has the pid again: not the run's).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

SHM_DIR = Path("/dev/shm")
SCAN_INTERVAL_S = 0.5
_TORCH_SEGMENT = re.compile(r"torch_([0-9]+)_")  # PyTorch's file_system strategy: torch_<pid>_<n>_<i>


def entries(folder: Path = SHM_DIR) -> set[str]:
    """The names in /dev/shm now (empty where there is no such folder, as on macOS)."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def held_by(pid: int, folder: Path = SHM_DIR) -> set[str]:
    """The names in `folder` that process `pid` has mapped or open (Linux /proc; empty elsewhere)."""
    inside = re.compile(re.escape(f"{folder}/") + r"([^/\s]+)")
    names: set[str] = set()
    with contextlib.suppress(OSError):
        names.update(inside.findall(Path(f"/proc/{pid}/maps").read_text(errors="replace")))
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                names.update(inside.findall(os.readlink(f"/proc/{pid}/fd/{fd}")))
    return names


def held_by_run(pids: list[int], folder: Path = SHM_DIR) -> set[str]:
    """What a run's processes hold in `folder` now, and PyTorch's file_system segments named after
    them (torch_<pid>_…: a segment whose helper is gone is held by nothing, yet is theirs)."""
    prefixes = tuple(f"torch_{pid}_" for pid in pids)
    named = {name for name in entries(folder) if prefixes and name.startswith(prefixes)}
    return named.union(*(held_by(pid, folder) for pid in pids))


def remove(names: set[str], folder: Path = SHM_DIR) -> None:
    """Removes these entries, those still there (a helper may have removed some already)."""
    for name in names:
        with contextlib.suppress(OSError):
            (folder / name).unlink()


@dataclass
class ShmWatch:
    """Watches one run: what was there before, which names its processes held, which pids it had."""

    folder: Path = SHM_DIR
    before: set[str] = field(default_factory=set)
    held: set[str] = field(default_factory=set)
    pids: set[int] = field(default_factory=set)
    _next_scan: float = 0.0

    def __post_init__(self) -> None:
        self.before = entries(self.folder)

    def poll(self, pids: list[int], force: bool = False) -> None:
        """Notes the run's processes and, each SCAN_INTERVAL_S (or when forced), what they hold.

        Their maps are read only while /dev/shm has entries that are new since the run started
        (most runs never leave one there long enough to be seen): reading a process's maps takes
        a lock that its own memory mappings wait for, and torch's import maps a lot.
        """
        self.pids.update(pids)
        now = time.monotonic()
        if force or now >= self._next_scan:
            self._next_scan = now + SCAN_INTERVAL_S
            if not entries(self.folder) - self.before:
                return
            for pid in pids:
                self.held |= held_by(pid, self.folder)

    def leftovers(self) -> list[str]:
        """The entries the run created and left, by name."""
        return sorted(name for name in entries(self.folder) - self.before if self._owns(name))

    def _owns(self, name: str) -> bool:
        if name in self.held:
            return True
        torch_segment = _TORCH_SEGMENT.match(name)
        if torch_segment is None:
            return False
        pid = int(torch_segment.group(1))
        return pid in self.pids and not psutil.pid_exists(pid)

    def remove_leftovers(self) -> list[str]:
        """Removes the run's leftovers; returns a description of each ("name (N KB)")."""
        described = []
        for name in self.leftovers():
            path = self.folder / name
            try:
                size = path.stat().st_size
                path.unlink()
            except OSError as exc:
                described.append(f"{name} (could not remove: {exc.strerror})")
                continue
            described.append(f"{name} ({size / 1024:.0f} KB)")
        return described
