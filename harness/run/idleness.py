"""Hangs told from idleness: a run whose main process waits for a batch while no process of the
run uses the CPU, and a worker sits blocked on a lock with no timeout, is stuck for good.

The fixed stall limit (no batch for N s) cannot tell a deadlock from a slow loader, so it must be
long. Idleness can, and sooner: a slow loader reads, sleeps or computes (a timed wait, I/O or CPU
time), while a deadlocked worker waits in `futex` with no timeout and nothing in the run is left
running to wake it. The blocked-for-good test reads Linux's /proc/<pid>/task/<tid>/syscall;
elsewhere `blocked_for_good` answers None and only the stall limit and the timeout apply.
"""

from __future__ import annotations

import contextlib
import platform
import sys
from pathlib import Path

import psutil

IDLE_CPU_S_PER_S = 0.02  # CPU seconds per second, all processes together, below which a run is idle
# Over a window, the CPU share below which a run waits rather than works: a waiting run wakes now and
# then (the DataLoader checks its workers every 5 s, the stack trigger's thread polls a file), a
# working one keeps a CPU busy.
WAITING_CPU_S_PER_S = 0.1
# The futex syscall's number, by machine; FUTEX_WAIT (0) and FUTEX_WAIT_BITSET (9) are waits.
FUTEX_SYSCALL = {"x86_64": 202, "aarch64": 98, "arm64": 98}.get(platform.machine())
FUTEX_WAITS = (0, 9)
FUTEX_CMD_MASK = 0x7F  # leaves out FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME


def waits_for_good(syscall_line: str) -> bool:
    """Whether a thread's /proc/.../syscall line is a futex wait with no timeout (NULL)."""
    fields = syscall_line.split()
    if FUTEX_SYSCALL is None or len(fields) < 5 or fields[0] != str(FUTEX_SYSCALL):
        return False
    with contextlib.suppress(ValueError):
        return int(fields[2], 16) & FUTEX_CMD_MASK in FUTEX_WAITS and int(fields[4], 16) == 0
    return False


def blocked_for_good(pid: int) -> bool | None:
    """Whether every thread of process `pid` waits on a futex with no timeout; None where that
    cannot be read (not Linux, no rights, the process is gone)."""
    if not sys.platform.startswith("linux") or FUTEX_SYSCALL is None:
        return None
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        lines = [(task / "syscall").read_text() for task in tasks]
    except OSError:
        return None
    return bool(lines) and all(waits_for_good(line) for line in lines)


class CpuWatch:
    """Follows the CPU time used by a run's processes: when it last used the CPU, how much it used
    over a recent window, and how long its threads were runnable but waited for a CPU (a busy
    machine's share: a process that works, starved, uses little CPU and queues the rest)."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.last_busy = started  # time.monotonic() of the last poll that saw CPU use
        self._times: dict[int, float] = {}
        self._queued: dict[int, float] = {}
        self._polled: float | None = None
        self._used: list[tuple[float, float, float]] = []  # (poll time, CPU s used, s queued since the last)

    def share(self, now: float, window_s: float) -> float | None:
        """CPU seconds a second all its processes used over the last `window_s` (None before the
        run lasted that long): a waiting run's is near 0, a working one's near a CPU or more."""
        return self._over(now, window_s, 1)

    def queued(self, now: float, window_s: float) -> float | None:
        """Seconds a second its threads were runnable and waited for a CPU over the last
        `window_s` (0 where the kernel does not say): a working run on a busy machine's is high,
        a waiting run's near 0."""
        return self._over(now, window_s, 2)

    def _over(self, now: float, window_s: float, column: int) -> float | None:
        if now - self.started < window_s:
            return None
        return sum(entry[column] for entry in self._used if entry[0] > now - window_s) / window_s

    def poll(self, tree: list[psutil.Process], now: float) -> None:
        times, queued = {}, {}
        for process in tree:
            with contextlib.suppress(psutil.Error):
                cpu = process.cpu_times()
                times[process.pid] = cpu.user + cpu.system
                queued[process.pid] = run_queue_s(process.pid)
        appeared = set(times) - set(self._times)
        used = sum(t - self._times.get(pid, t) for pid, t in times.items())
        waited = sum(max(0.0, q - self._queued.get(pid, q)) for pid, q in queued.items())
        if self._polled is None or appeared or used > IDLE_CPU_S_PER_S * (now - self._polled):
            self.last_busy = now
        kept = [entry for entry in self._used if entry[0] > now - EVIDENCE_KEPT_S]
        self._used = [*kept, (now, used, waited)]
        self._times, self._queued, self._polled = times, queued, now


def run_queue_s(pid: int) -> float:
    """Seconds the threads of process `pid` spent runnable, waiting for a CPU (Linux's
    /proc/<pid>/task/<tid>/schedstat, its second field, in ns); 0 where that cannot be read."""
    if not sys.platform.startswith("linux"):
        return 0.0
    total = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def waits(share: float | None, queued: float | None) -> bool:
    """Whether a run's processes wait rather than work, from the CPU they used and the time they
    spent runnable, waiting for a CPU, in seconds a second over a window (None: not read, no
    evidence that they wait)."""
    return share is not None and share + (queued or 0.0) < WAITING_CPU_S_PER_S


EVIDENCE_KEPT_S = 30.0  # how far back the CPU used is kept for `share`
