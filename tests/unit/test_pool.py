"""The scheduler's one pool (harness/scheduler/pool.py): runs under Wine capped, native runs beside
them, the longest expected first."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from harness.run.active_runs import ACTIVE_RUNS
from harness.run.launch.native import NativeLauncher
from harness.run.launch.wine import AT_ONCE as WINE_AT_ONCE
from harness.run.launch.wine import WineLauncher
from harness.scheduler import lane, longest_first, run_all

WINE = SimpleNamespace(name="windows", launcher=WineLauncher())
NATIVE = SimpleNamespace(name="linux", launcher=NativeLauncher())


def _job(case: str, profile) -> SimpleNamespace:
    return SimpleNamespace(case=SimpleNamespace(name=case), variant="broken", profile=profile)


def test_runs_under_wine_stay_under_their_cap_while_native_runs_go_beside_them():
    running = {"wine": 0, None: 0}
    most = {"wine": 0, None: 0}
    beside = []
    lock = threading.Lock()

    def run(task):
        with lock:
            running[lane(task)] += 1
            most[lane(task)] = max(most[lane(task)], running[lane(task)])
            if lane(task) is None and running["wine"]:
                beside.append(task.case.name)
        time.sleep(0.05)
        with lock:
            running[lane(task)] -= 1
        return SimpleNamespace(key=(task.case.name, "broken", task.profile.name))

    tasks = [_job(f"w{i}", WINE) for i in range(6)] + [_job(f"n{i}", NATIVE) for i in range(6)]
    results = run_all(tasks, 4, run=run)
    assert len(results) == 12
    assert most["wine"] == WINE_AT_ONCE, "never more runs under Wine at once than the cap"
    assert most[None] >= 2 and beside, "native runs went on beside the capped ones, not after them"


def test_a_failing_task_is_raised_in_the_caller():
    def run(task):
        raise ValueError(task.case.name)

    try:
        run_all([_job("boom", NATIVE)], 2, run=run)
    except ValueError as exc:
        assert str(exc) == "boom"
    else:
        raise AssertionError("the task's exception was lost")
    assert not ACTIVE_RUNS._closing, "a run started later in this process is not ended at launch"


def test_the_longest_expected_run_goes_first_and_an_unknown_one_counts_as_its_profiles_longest():
    jobs = [_job("short", NATIVE), _job("long", NATIVE), _job("new", WINE), _job("wine", WINE)]
    durations = {("short", "broken", "linux"): 2.0, ("long", "broken", "linux"): 30.0}
    durations[("wine", "broken", "windows")] = 40.0
    order = [job.case.name for job in longest_first(jobs, durations)]
    assert order == ["new", "wine", "long", "short"]


def test_runs_at_once_stay_within_the_memory_their_limits_add_up_to():
    """A run whose limit is raised (case 24's spawned workers) runs beside fewer others: the
    limits of the runs in flight never sum over the budget, unless a run is alone."""
    from harness.scheduler.pool import _Queue

    def job(case, limit_mb):
        return SimpleNamespace(case=SimpleNamespace(name=case), profile=NATIVE, memory_limit_mb=limit_mb)

    heavy, other_heavy, light = job("heavy", 10_000), job("other", 10_000), job("light", 4_000)
    queue = _Queue([heavy, other_heavy, light], caps={}, budget_mb=18_000)
    assert queue.take() is heavy
    assert queue._next() is None, "the second heavy one waits, and the light one behind it"
    queue.release(heavy)
    assert queue.take() is other_heavy
    assert queue.take() is light, "it fits beside"
    wine = SimpleNamespace(case=SimpleNamespace(name="wine"), profile=WINE, memory_limit_mb=4_000)
    capped = _Queue([wine, heavy, light], caps={lane(wine): 1}, budget_mb=18_000)
    capped._running[lane(wine)] = 1
    assert capped._next() == 1, "a task whose lane is full is passed over"
    alone = _Queue([job("huge", 30_000)], caps={}, budget_mb=18_000)
    assert alone.take().case.name == "huge", "a run over the budget still runs, alone"
