"""One pool for every kind of run: native runs and runs under Wine side by side, the ones under
Wine capped, the longest expected first, and no more at once than the machine's memory holds at
their memory limits."""

from __future__ import annotations

import concurrent.futures
import queue as _queue
import threading
from collections.abc import Callable

import psutil

from .. import profiles
from ..results import RunResult
from ..run import launch
from ..run.active_runs import ACTIVE_RUNS
from ..run.memory import MB
from ..run.settings import MEMORY_LIMIT_MB

# The share of the machine's memory that the runs in flight may hold at their limits together: a
# case that needs more than the default (case 24: sixty spawned workers, 145 MB each) runs beside
# fewer others, so that two such runs never meet on a machine of 24 GB.
MEMORY_SHARE = 0.75


def lane(task) -> str | None:
    """The lane a task runs in, whose runs at once are capped (harness/run/launch `caps`): its
    launcher's name for a launcher that caps its runs (a Job, or a profile), None for the others."""
    profile = getattr(task, "profile", task)
    if isinstance(profile, str):
        profile = profiles.PROFILES.get(profile)
    launcher = getattr(profile, "launcher", None)
    return launcher.name if launcher is not None and launcher.at_once else None


def memory_mb(task) -> float:
    """The memory a task's run may hold before the harness stops it: a Job's limit, else the
    default."""
    return getattr(task, "memory_limit_mb", MEMORY_LIMIT_MB)


def longest_first(jobs: list, durations: dict[tuple[str, str, str], float]) -> list:
    """The jobs, those expected to take longest first (so that no long run starts last); a job
    that no results file timed counts as its profile's longest known."""
    longest: dict[str, float] = {}
    for (_, _, profile), seconds in durations.items():
        longest[profile] = max(longest.get(profile, 0.0), seconds)

    def expected(job) -> float:
        key = (job.case.name, job.variant, job.profile.name)
        return durations.get(key, longest.get(job.profile.name, 0.0))

    return sorted(jobs, key=expected, reverse=True)


def run_all(
    tasks: list,
    workers: int,
    run: Callable,
    on_done: Callable[[RunResult], None] | None = None,
    caps: dict[str, int] | None = None,
) -> list[RunResult]:
    """Runs `run(task)` for each task, in the order given, on `workers` threads (each waits on its
    own process tree), one pool for every kind of run: a thread takes the first task whose lane
    (`lane`) is under its cap (`caps`, default: each launcher's own, launch.caps()), so native
    runs go on beside the capped ones instead of after them."""
    budget_mb = psutil.virtual_memory().total / MB * MEMORY_SHARE
    queue = _Queue(tasks, launch.caps() if caps is None else caps, budget_mb)
    finished: list = []
    ACTIVE_RUNS.open()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(_serve, queue, run) for _ in range(max(1, workers))]
            try:
                for result in queue.results():
                    finished.append(result)
                    if on_done:
                        on_done(result)
                for future in futures:
                    future.result()
            except BaseException:
                queue.close()
                ACTIVE_RUNS.end_all()
                raise
    finally:
        # Once the pool is shut, a run started later in this process (a test's, after a task
        # failed here) must not be ended at launch as one started while stopping.
        ACTIVE_RUNS.resume()
    return sorted(finished, key=lambda r: r.key)


def _serve(queue: _Queue, run) -> None:
    """One thread: takes the next task it may run until none is left."""
    while (task := queue.take()) is not None:
        try:
            queue.put(run(task))
        except BaseException as exc:
            queue.put(exc)
            raise
        finally:
            queue.release(task)


class _Queue:
    """The tasks not yet started, what runs in each lane, and the results as they come."""

    def __init__(self, tasks: list, caps: dict[str, int], budget_mb: float = float("inf")) -> None:
        self._pending = list(tasks)
        self._left = len(self._pending)
        self._caps = caps
        self._budget_mb = budget_mb
        self._held_mb = 0.0  # the memory limits of the runs in flight, summed
        self._running: dict[str | None, int] = {}
        self._changed = threading.Condition()
        self._done: _queue.SimpleQueue = _queue.SimpleQueue()

    def take(self):
        """The first pending task whose lane has room and whose memory limit the budget holds
        beside the runs in flight (a task alone always runs); waits for room; None when none is
        left."""
        with self._changed:
            while self._pending:
                index = self._next()
                if index is not None:
                    task = self._pending.pop(index)
                    name = lane(task)
                    self._running[name] = self._running.get(name, 0) + 1
                    self._held_mb += memory_mb(task)
                    return task
                self._changed.wait()
            return None

    def _next(self) -> int | None:
        """The index of the task to start now; None where none may. A task whose lane is full is
        passed over; one that waits for memory holds its place: no task after it starts before it
        (one that did would keep it waiting, and a run with a raised limit, taken in the order of
        the longest expected first, waited until every other had run: case 24's run of sixty
        spawned workers, 75 s, started last in a matrix of 1,357 s, here on 7 Dec 2026)."""
        for index, task in enumerate(self._pending):
            name = lane(task)
            if self._running.get(name, 0) >= self._caps.get(name, len(self._pending) + 1):
                continue
            fits = not self._held_mb or self._held_mb + memory_mb(task) <= self._budget_mb
            return index if fits else None
        return None

    def release(self, task) -> None:
        with self._changed:
            self._running[lane(task)] -= 1
            self._held_mb -= memory_mb(task)
            self._changed.notify_all()

    def put(self, outcome) -> None:
        self._done.put(outcome)

    def results(self):
        """Each result as it comes (in the calling thread); a task's exception is raised here."""
        while self._left:
            outcome = self._done.get()
            self._left -= 1
            if isinstance(outcome, BaseException):
                raise outcome
            yield outcome

    def close(self) -> None:
        """No further task starts (the runs in progress are ended by the caller)."""
        with self._changed:
            self._pending.clear()
            self._changed.notify_all()
