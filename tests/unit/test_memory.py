"""Memory sampling and the leak verdict: measured worker growth against the case's threshold."""

from __future__ import annotations

import collections
import os

import pytest

from harness import judge
from harness.outcomes import Outcome
from harness.run.memory import MB, largest_growth, resident, worker_summary

pytestmark = pytest.mark.linux


def series(role, samples, ready=None):
    return {"role": role, "ready_s": ready, "samples": samples}


def test_baseline_is_taken_once_the_worker_serves():
    processes = {
        "1": series("main", [[0.0, 300.0], [1.0, 900.0]]),
        "2": series("worker", [[0.5, 10.0], [1.0, 150.0], [1.5, 320.0], [2.0, 322.0]], ready=1.5),
        "3": series("helper", [[0.5, 5.0], [2.0, 50.0]]),
    }
    assert worker_summary(processes) == {
        "2": {
            "baseline_mb": 321.0,
            "peak_mb": 322.0,
            "growth_mb": 1.0,
            "late_growth_mb": None,
            "served_growth_mb": 2.0,
            "metric": "uss",
        }
    }


def test_without_a_ready_mark_the_first_samples_are_the_baseline():
    processes = {"7": series("worker", [[0.1, 6.0], [0.5, 10.0], [0.9, 60.0], [1.3, 90.0]])}
    assert largest_growth({"workers": worker_summary(processes)}) == (80.0, 10.0, "uss")


def test_growth_is_judged_past_each_workers_warm_up():
    """A worker that imports and allocates over its first batches, slowly on a busy machine (the
    shape of a MONAI pipeline's workers under two CPU-bound processes): growth from its start of
    service is warm-up; from its warm-up mark on, none. A worker whose warm-up was not over when
    sampling ended is left out where others were marked."""
    warming = [[1.0, 12.0], [1.2, 20.0], [1.4, 28.0], [1.6, 36.0], [1.8, 44.0], [2.0, 50.0]]
    steady = [[2.2, 50.5], [2.4, 50.4], [2.6, 50.6], [2.8, 50.5], [3.0, 50.6], [3.2, 50.6]]
    still_warming = [[2.2 + n / 5, 52.0 + 2 * n] for n in range(6)]  # sampled as long: no exit
    processes = {
        "2": {**series("worker", warming + steady, ready=1.0), "warm_s": 2.1},
        "3": {**series("worker", warming + still_warming, ready=1.0), "warm_s": None},
    }
    assert worker_summary({"2": {**processes["2"], "warm_s": None}})["2"]["growth_mb"] > 30
    summary = worker_summary(processes)
    assert list(summary) == ["2"] and summary["2"]["baseline_mb"] == 50.5
    assert summary["2"]["growth_mb"] == 0.1


def test_the_sampling_window_counts_the_samples_past_the_warm_up():
    from harness.run.memory import MemoryMonitor, ProcessSeries

    monitor = MemoryMonitor(root_pid=1, started=0.0, interval_s=0.2)
    samples = [(0.2 * n, 10.0) for n in range(1, 16)]  # 15 samples, from 0.2 s to 3.0 s
    monitor.series = {pid: ProcessSeries("worker", samples=samples) for pid in (2, 3)}
    assert monitor.fewest_worker_samples() == 15, "no mark yet: every sample counts"
    monitor.mark_warm({2: 2.0})
    assert monitor.fewest_worker_samples() == 6, "the warm worker's samples from 2.0 s on"
    monitor.mark_warm({3: 2.9})
    assert monitor.fewest_worker_samples() == 1


def test_a_dip_while_the_worker_forks_a_helper_is_not_the_baseline():
    """Observed under the file_system strategy: the worker's USS read 10 MB for one sample while it
    forked torch_shm_manager (every page shared for an instant), and 314 MB before and after."""
    samples = [[5.88, 329.2], [6.0, 329.2], [6.14, 10.1], [6.27, 314.3], [6.4, 314.3], [6.53, 314.2]]
    summary = worker_summary({"5175": series("worker", samples, ready=6.06)})
    assert summary["5175"]["baseline_mb"] == 314.3 and summary["5175"]["growth_mb"] == 0.0


def test_a_worker_is_not_judged_on_what_its_siblings_exit_left_it():
    """A survivor's USS jumps when a sibling exits (the pages they shared, which the main process
    had copied, become its own): that rise is taken off, from the sibling's last sample that held
    its memory (an exiting one reads near 0) to the survivor's first after the sibling's last;
    what it grew before and after stays its own. Workers that end together keep every sample."""
    before = [[2.2, 12.0], [2.4, 12.1], [2.6, 12.1], [2.8, 12.1], [3.0, 12.1]]
    processes = {
        "2": {**series("worker", [*before, [3.2, 30.0], [3.4, 49.0], [3.6, 49.0]], ready=2.0), "warm_s": 2.1},
        "3": {**series("worker", [*before, [3.2, 0.0]], ready=2.0), "warm_s": 2.1},
    }
    assert worker_summary(processes)["2"]["growth_mb"] == 0.0
    processes["2"]["samples"][-1] = [3.6, 60.0]
    assert worker_summary(processes)["2"]["growth_mb"] == 11.0, "its growth after the exit is its own"
    processes["3"]["samples"] = [*before, [3.2, 12.1], [3.4, 12.2], [3.6, 12.2]]
    assert worker_summary(processes)["2"]["growth_mb"] == 47.9, "no worker exited first: its own"
    later = {"4": {**series("worker", [[3.5, 12.0], [3.6, 12.0]], ready=3.5), "warm_s": 3.55}}
    assert worker_summary({**processes, **later})["2"]["growth_mb"] == 47.9, "one that came after"
    steady = [[2.2 + n / 5, 12.0 + 3 * n] for n in range(12)]
    early = {"5": {**series("worker", steady, ready=2.0), "warm_s": 2.1}}
    early["6"] = {**series("worker", steady[:-1], ready=2.0), "warm_s": 2.1}  # not sampled at the last tick
    assert worker_summary(early)["5"]["growth_mb"] == 27.0, "one rise of eleven taken off, no more"


def test_judge_memory_against_threshold():
    memory = {"workers": {"1": {"baseline_mb": 6.0, "peak_mb": 86.0, "growth_mb": 80.0}}}
    assert judge.judge_memory(memory, 40)[0] is Outcome.LEAK
    assert judge.judge_memory(memory, 100)[0] is Outcome.OK
    assert "grew 80 MB over its 6 MB baseline" in judge.judge_memory(memory, 40)[1]
    assert judge.judge_memory({}, 40)[0] is Outcome.ERROR


def test_a_leak_is_judged_only_on_the_metric_its_threshold_was_set_for():
    """Read as RSS, the run is not judged (tests/unit/test_skips.py); read as USS, it is."""
    processes = {"7": {**series("worker", [[0.1, 6.0], [0.9, 90.0]]), "metric": "rss"}}
    summary = worker_summary(processes)
    assert summary["7"]["metric"] == "rss"
    processes["7"]["metric"] = "uss"
    assert judge.judge_memory({"workers": worker_summary(processes)}, threshold_mb=40)[0] == "leak"


def test_the_monitor_measures_the_snapshot_it_is_handed_and_looks_up_nothing():
    """One snapshot a tick serves every watcher: the monitor reads no tree of its own."""
    import subprocess
    import sys

    import psutil

    from harness.run import processes
    from harness.run.memory import MemoryMonitor

    ready = "import time; print('ready', flush=True); time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", ready], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n", "the child runs: its memory is its own, not exec's"
        tree = processes.snapshot(os.getpid())
        assert child.pid in [p.pid for p in tree]
        monitor = MemoryMonitor(root_pid=os.getpid(), started=0.0, interval_s=0.1)
        monitor.main_pid = os.getpid()
        assert monitor.poll([], 1.0) == 0.0, "an empty snapshot: nothing measured"
        assert monitor.poll([psutil.Process(child.pid)], 2.0) > 1.0
        assert list(monitor.series) == [child.pid], "the child, not the parent it never saw"
        assert child.pid in [p.pid for p in processes.workers(tree, (os.getpid(),))]
    finally:
        child.kill()
        child.wait()


def test_a_runs_memory_leaves_out_what_its_processes_map_from_the_same_files():
    linux = collections.namedtuple("pmem", "rss vms shared text lib data dirty")
    # six processes that each map 550 MB of torch's libraries and hold 50 MB of their own
    assert sum(resident(linux(600, 0, 550, 0, 0, 0, 0)) for _ in range(6)) == 300
    assert resident(collections.namedtuple("pmem", "rss vms")(600, 900)) == 600  # no `shared`: RSS


def test_measuring_what_a_datasets_list_holds_copies_no_page_of_it_under_fork():
    """The worker probe measures the bytes a Dataset's list holds (dlp_rng.held_bytes) in a forked
    worker: touching every item to do so would itself copy every page (a worker of case 06 read
    179 MB at once, its whole list, when the probe iterated it); sampled by index, it copies none."""
    import multiprocessing
    import sys

    import psutil

    from tests.conftest import ROOT

    sys.path.insert(0, str(ROOT / "harness" / "boot"))
    import dlp_rng

    captions = [f"caption {n:08d}" for n in range(1_000_000)]  # about 70 MB of str objects
    context = multiprocessing.get_context("fork")
    measured, done = context.Queue(), context.Event()

    def worker():
        own = psutil.Process().memory_full_info().uss
        held = dlp_rng.held_bytes(captions)
        measured.put((held, psutil.Process().memory_full_info().uss - own))
        done.wait(10)

    child = context.Process(target=worker)
    child.start()
    held, copied = measured.get(timeout=30)
    done.set()
    child.join(10)
    assert held > 60 * 2**20, "the list's strings are counted"
    assert copied < 8 * 2**20, f"{copied / 2**20:.0f} MB copied by measuring"


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="Linux's smaps_rollup")
def test_a_limit_is_passed_on_what_forked_processes_hold_together_not_on_each_ones_copy():
    """A parent with 200 MB of its own and three forks that share every page of it: the cheap sum
    counts the 200 MB four times; the proportional sum, once. Only the second stops a run."""
    import psutil

    from harness.run.memory import MemoryMonitor, proportional

    own = proportional(psutil.Process())  # what this test process held before (pytest, imports)
    held = bytearray(200 * MB)  # zero pages until written: each page written once
    for offset in range(0, len(held), 4096):
        held[offset] = 1
    reader, writer = os.pipe()
    children = []
    for _ in range(3):
        if (pid := os.fork()) == 0:  # the child shares every page of `held`, and waits
            os.close(writer)
            os.read(reader, 1)
            os._exit(0)
        children.append(pid)
    os.close(reader)
    try:
        tree = [psutil.Process(), *(psutil.Process(pid) for pid in children)]
        monitor = MemoryMonitor(root_pid=os.getpid(), started=0.0, interval_s=None)
        assert not monitor.over(tree, 1.0, limit_mb=own + 500), "under the limit, held once"
        assert monitor.peak_total_mb > own + 700, "the cheap sum counted the shared pages once a process"
        assert 150 < monitor.confirmed_mb - own < 300, (monitor.confirmed_mb, own)
        fresh = MemoryMonitor(root_pid=os.getpid(), started=0.0, interval_s=None)
        assert fresh.over(tree, 1.0, limit_mb=own + 150), "over the limit, held once"
    finally:
        os.close(writer)
        for pid in children:
            os.waitpid(pid, 0)
    del held
