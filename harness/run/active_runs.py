"""The runs in flight in this harness process, so that an interrupted harness can end them all.

The watchdog is told of each run too, so that a harness killed outright has them ended as well.
"""

from __future__ import annotations

import threading
from pathlib import Path

from . import processes, shm_leftovers
from .watchdog import LIFELINE


class _ActiveRuns:
    """The runs in flight: their root pid, run id, session, probe folder and a label."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, tuple[str, int | None, Path, str]] = {}
        self._closing = False  # end_all was called: a run that starts now is ended at once
        self.stopped: list[tuple[str, int, dict[str, str]]] = []  # (label, root pid, stacks) by end_all

    def open(self) -> None:
        self._closing = False
        self.stopped = []

    def resume(self) -> None:
        """The stopping is over (its runs ended, their pool shut): a later run may start again in
        this process. `stopped` is kept for the report."""
        self._closing = False

    def add(self, pid: int, run_id: str, session_id: int | None, probe_dir: Path, label: str) -> None:
        with self._lock:
            self._runs[pid] = (run_id, session_id, probe_dir, label)
            closing = self._closing
        LIFELINE.started(pid, run_id, session_id)
        if closing:  # launched while the harness was stopping everything
            processes.terminate(processes.find_run_processes(pid, run_id, session_id), grace_s=1.0)

    def remove(self, pid: int) -> None:
        with self._lock:
            self._runs.pop(pid, None)
        LIFELINE.ended(pid)

    def end_all(self) -> None:
        """Ends every run in flight, keeping where each one's processes were (their stacks), and
        removes what they held in /dev/shm."""
        with self._lock:
            self._closing = True
            runs = list(self._runs.items())
        for pid, (run_id, session_id, probe_dir, label) in runs:
            tree = processes.find_run_processes(pid, run_id, session_id)
            self.stopped.append((label, pid, processes.dump_stacks(tree, probe_dir, wait_s=1.0)))
            held = shm_leftovers.held_by_run([p.pid for p in tree])
            processes.terminate(tree, grace_s=1.0)
            shm_leftovers.remove(held)  # their helpers ended with them, or had died before


ACTIVE_RUNS = _ActiveRuns()
