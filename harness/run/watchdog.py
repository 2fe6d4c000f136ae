"""The harness's watchdog: ends the runs of a harness that died without ending them itself.

A harness process starts one watchdog, in a session of its own, the first time it starts a run
(`Lifeline`). It tells it on a pipe when each run starts and ends; the write end of that pipe is
held by the harness alone. End of file on the pipe means the harness is gone: killed by SIGKILL or
the out-of-memory killer, or crashed. The watchdog then kills every process of the runs still in
flight (their session and process group, and whatever carries their run id) and removes the
/dev/shm entries those processes held, then exits. A harness that ends normally has no runs in
flight: its watchdog just exits.

Messages, one line each: `start ROOT_PID RUN_ID SESSION_ID` (`-` where there are no sessions,
as on Windows) and `end ROOT_PID`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from . import processes, shm_leftovers

END_WAIT_S = 5.0


class Lifeline:
    """The harness's side: starts the watchdog on first use, tells it about runs (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pipe: IO[str] | None = None
        self.watchdog: subprocess.Popen | None = None

    def started(self, root_pid: int, run_id: str, session_id: int | None) -> None:
        self._send(f"start {root_pid} {run_id} {'-' if session_id is None else session_id}")

    def ended(self, root_pid: int) -> None:
        self._send(f"end {root_pid}")

    def _send(self, line: str) -> None:
        with self._lock:
            try:
                if self._pipe is None or self.watchdog.poll() is not None:
                    self._pipe = self._start()
                self._pipe.write(line + "\n")
                self._pipe.flush()
            except OSError:  # no watchdog: the runs are still ended by the harness itself
                self._pipe = None

    def _start(self) -> IO[str]:
        package_parent = str(Path(__file__).resolve().parents[2])
        python_path = os.pathsep.join([package_parent, *filter(None, [os.environ.get("PYTHONPATH")])])
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", f"from {__package__}.watchdog import main; main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            **processes.NEW_GROUP,  # not ended with the harness's terminal or process group
            env={**os.environ, "PYTHONPATH": python_path},
        )
        return self.watchdog.stdin


LIFELINE = Lifeline()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # its harness decides; a stray Ctrl-C must not
    runs: dict[int, tuple[str, int | None]] = {}
    for line in sys.stdin:
        kind, *fields = line.split()
        if kind == "start" and len(fields) == 3:
            runs[int(fields[0])] = (fields[1], None if fields[2] == "-" else int(fields[2]))
        elif kind == "end" and len(fields) == 1:
            runs.pop(int(fields[0]), None)
    for root_pid, (run_id, session_id) in runs.items():
        end_run(root_pid, run_id, session_id)


def end_run(root_pid: int, run_id: str, session_id: int | None) -> None:
    """Kills the run's processes at once, lets its cleanup helpers finish, removes what was held.

    multiprocessing's resource tracker and PyTorch's torch_shm_manager remove the semaphores and
    segments of their clients once the last client is gone: they are left to do so (for up to
    END_WAIT_S), then killed too. What the processes held in /dev/shm is removed last.
    """
    tree = processes.find_run_processes(root_pid, run_id, session_id)
    held = shm_leftovers.held_by_run([p.pid for p in tree])
    for _ in range(3):  # a process forked between looking and killing is found the next time
        clients = [p for p in tree if not processes.is_cleanup_helper(p)]
        for process in clients:
            with contextlib.suppress(Exception):
                process.kill()
        processes.wait_ended(clients, 1.0)
        tree = processes.find_run_processes(root_pid, run_id, session_id)
    helpers = processes.wait_ended(tree, END_WAIT_S)
    for process in helpers:
        with contextlib.suppress(Exception):
            process.kill()
    processes.wait_ended(helpers, 1.0)
    shm_leftovers.remove(held)
