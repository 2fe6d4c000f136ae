"""The main process's events read as the run goes on (harness/run/probe_records.py ProgressWatch):
batches, and whether a loader ran a later epoch to its end (what a start-up measurement needs)."""

from __future__ import annotations

from harness.run.probe_records import ProgressWatch


def _events(path, *lines):
    with open(path, "a", encoding="utf-8") as events:
        events.writelines(f"{line} 1700000000.0\n" for line in lines)


def test_a_later_epoch_is_one_of_the_same_loader(tmp_path):
    path = tmp_path / "1.events"
    watch = ProgressWatch(0.0)
    _events(path, "iter 1 4 1024 1", "want 1", "batch 1 1 20", "end 1 1", "iter 2 2 1024 2", "end 2 1")
    watch.poll(path, 1.0)
    assert watch.batches == 1 and not watch.later_epoch_ended, "a validation loader's pass is no later epoch"
    _events(path, "iter 3 4 1024 1", "batch 3 1 20")
    watch.poll(path, 2.0)
    assert not watch.later_epoch_ended, "the training loader's second epoch has not ended yet"
    _events(path, "end 3 1")
    watch.poll(path, 3.0)
    assert watch.later_epoch_ended and watch.batches == 2


def test_an_epoch_is_under_way_until_it_ends_or_its_workers_are_shut_down(tmp_path):
    """A stall is judged only while a loader is iterated: not once its epoch ended, nor while an
    abandoned iterator's workers are shut down (a bounded wait, 5 s a worker under spawn here)."""
    path = tmp_path / "1.events"
    watch = ProgressWatch(0.0)
    _events(path, "iter 1 2 1024 1", "want 1")
    watch.poll(path, 1.0)
    assert watch.iterating and watch.waiting
    _events(path, "batch 1 1 20", "want 1", "batch 1 2 20", "want 1", "end 1 2")
    watch.poll(path, 2.0)
    assert not watch.iterating, "the epoch ended: the script does something else"
    _events(path, "iter 2 2 1024 1", "iter 3 2 1024 2", "want 3", "batch 3 1 20", "shutdown 3")
    watch.poll(path, 3.0)
    assert watch.iterating, "the training epoch is still under way while the validation loader shuts down"
    _events(path, "shutdown 2")
    watch.poll(path, 4.0)
    assert not watch.iterating
