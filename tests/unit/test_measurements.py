"""The measurements that confirm or refute a pitfall (harness/measurements.py), on recorded facts."""

from __future__ import annotations

from types import SimpleNamespace

from harness import measurements
from harness.results import RunResult
from harness.run.memory import worker_summary

CASE_06 = SimpleNamespace(leak_threshold_mb=40)


def _run(profile="linux", start_method="fork", **facts) -> RunResult:
    return RunResult(
        case="s", variant="check", profile=profile, start_method=start_method, outcome="ok", **facts
    )


def _rng(states: dict[str, str], used=("0", "1")) -> dict:
    return {"1234": {"dataset.transform.rng": {"states": states, "used": list(used)}}}


def test_workers_drawing_from_the_same_state_confirm_duplicated_randomness():
    measured = measurements.randomness([_run(rng=_rng({"0": "aa", "1": "aa"}))])
    assert measured.confirmed
    assert "`dataset.transform.rng` started from the same state in workers 0, 1" in measured.text


def _drawn(ends: dict[str, str], seed="1234", starts=None, path="numpy.random") -> dict:
    """A loader iteration's record: each worker's generator ends its first batch in `ends`."""
    states = starts or {worker: "s" + worker for worker in ends}
    return {seed: {path: {"states": states, "used": list(ends), "ends": ends}}}


def test_an_old_record_started_alike_and_drawn_from_still_confirms_an_unused_one_does_not():
    assert measurements.randomness([_run(rng=_rng({"0": "aa", "1": "aa"}, used=()))]).verdict != "confirmed"


def test_workers_that_drew_the_same_numbers_in_one_iteration_confirm_it():
    measured = measurements.randomness([_run(rng=_drawn({"0": "e1", "1": "e1"}))])
    assert measured.confirmed
    assert "`numpy.random` ended its first batch in the same state in workers 0, 1" in measured.text


def test_a_generator_reseeded_per_item_judged_on_what_was_drawn_not_where_it_started():
    """Issue 42: a library reseeds its transforms' generator per item; every worker starts it in
    the same state, but what each drew differs: no shared randomness."""
    alike = {"0": "same", "1": "same"}
    reseeded = [
        _run(rng=_drawn({"0": "a1", "1": "b1"}, seed="1", starts=alike)),
        _run(profile="windows-emulated", rng=_drawn({"0": "a2", "1": "b2"}, seed="2", starts=alike)),
    ]
    measured = measurements.randomness(reseeded)
    assert measured.refuted, measured.text
    assert "each worker drew differently from its generators in each of 2 loader iterations" in measured.text


def test_a_worker_drawing_the_same_numbers_every_epoch_confirms_it_though_workers_differ():
    """Issue 42: `np.random.seed(worker_id)` in worker_init_fn: the workers differ from each
    other, but worker 0 draws the same numbers in every epoch (and every run)."""
    epochs = {**_drawn({"0": "w0", "1": "w1"}, seed="11"), **_drawn({"0": "w0", "1": "w1"}, seed="22")}
    measured = measurements.randomness([_run(rng=epochs)])
    assert measured.confirmed, measured.text
    assert "ended worker 0's first batch in the same state in 2 loader iterations seeded differently" in (
        measured.text
    )
    across_runs = [
        _run(rng=_drawn({"0": "w0", "1": "w1"}, seed="11")),
        _run(profile="windows-emulated", rng=_drawn({"0": "w0", "1": "w1"}, seed="33")),
    ]
    assert measurements.randomness(across_runs).confirmed


def test_one_iteration_per_seed_cannot_refute_a_repeat_across_epochs():
    """Distinct workers in one loader iteration, the same seed in both runs (a script that seeds
    torch): whether each epoch repeats is not known, and is not called fine."""
    same_seed = [_run(rng=_drawn({"0": "w0", "1": "w1"}, seed="5")),
                 _run(profile="windows-emulated", rng=_drawn({"0": "w0", "1": "w1"}, seed="5"))]  # fmt: skip
    measured = measurements.randomness(same_seed)
    assert measured.verdict == measurements.UNKNOWN and "run two epochs" in measured.text


def _epoch(fds, length=None, limit=1024, batches=None):
    return {"fds": fds, "length": length, "fd_limit": limit, "batches": batches or fds[-1][0]}


RISING = [[n, 20 + n] for n in range(1, 101)]  # one descriptor a batch


def test_a_steady_descriptor_rise_that_reaches_the_limit_within_the_epoch_is_a_predicted_failure():
    measured = measurements.open_files([_run(loader_epochs=[_epoch(RISING, length=3000)])])
    assert measured.confirmed
    assert (
        "the 1024 open-file limit is reached after about 1004 batches; an epoch here is 3000" in measured.text
    )


def test_a_rise_that_ends_with_the_epoch_under_the_limit_is_fine():
    measured = measurements.open_files([_run(loader_epochs=[_epoch(RISING[:8], length=8)])])
    assert measured.refuted and "under the limit of 1024" in measured.text


def test_flat_descriptors_are_fine_and_an_unknown_length_is_no_verdict():
    flat = [[n, 20 + n % 3] for n in range(1, 50)]
    assert measurements.open_files([_run(loader_epochs=[_epoch(flat, length=3000)])]).refuted
    unknown = measurements.open_files([_run(loader_epochs=[_epoch(RISING, length=None)])])
    assert unknown.verdict == measurements.UNKNOWN and "not known" in unknown.text
    assert measurements.open_files([_run(loader_epochs=[_epoch(RISING[:3], length=9)])]).verdict == "unknown"


def _memory(growth_mb: float, samples: int = 6) -> dict:
    series = [[0.5 + i * 0.2, 100.0 + growth_mb * i / (samples - 1)] for i in range(samples)]
    processes = {"11": {"role": "worker", "metric": "uss", "ready_s": 0.5, "samples": series}}
    return {"processes": processes, "workers": worker_summary(processes)}


def test_worker_growth_carried_to_the_epoch_confirms_or_refutes_copy_on_read():
    epoch = _epoch([[1, 20]], length=2000, batches=100)
    grows = measurements.worker_memory([_run(memory=_memory(30), loader_epochs=[epoch])], CASE_06)
    assert (
        grows.confirmed
        and "grew 24 MB over 100 batches; at this rate about 480 MB each over an epoch of 2000 batches"
        in grows.text
    )
    short = _epoch([[1, 20]], length=100, batches=100)
    fine = measurements.worker_memory([_run(memory=_memory(1), loader_epochs=[short])], CASE_06)
    assert fine.refuted and "under 40 MB" in fine.text


def test_a_worker_that_grew_at_its_start_then_settled_is_no_copy_on_read():
    """Observed in case 21's scripts (numpy and memory-mapped Datasets, 1 MB batches): a worker's
    private memory rose about 30 MB over its first 50 batches, then stayed; carried linearly to the
    epoch it named case 06. Half the window flat says the growth was the worker's start."""
    settled = [[0.5 + i * 0.2, 100.0 + min(i, 4) * 9.0] for i in range(12)]
    processes = {"11": {"role": "worker", "metric": "uss", "ready_s": 0.5, "samples": settled}}
    memory = {"processes": processes, "workers": worker_summary(processes)}
    epoch = _epoch([[1, 20]], length=489, batches=52)
    measured = measurements.worker_memory([_run(memory=memory, loader_epochs=[epoch])], CASE_06)
    assert measured.refuted and "it settled after its start" in measured.text, measured.text
    steady = _memory(30, samples=12)  # the same growth, spread over the window: copy-on-read
    assert measurements.worker_memory([_run(memory=steady, loader_epochs=[epoch])], CASE_06).confirmed


def test_worker_growth_while_the_main_process_keeps_every_batch_is_not_copy_on_read():
    """Kept batches (case 12) keep the workers' shared memory mapped: their USS grows without any
    copy-on-read, so the growth says nothing of case 06."""
    keeps = _epoch(RISING, length=3000, batches=len(RISING))
    measured = measurements.worker_memory([_run(memory=_memory(30), loader_epochs=[keeps])], CASE_06)
    assert measured.verdict == measurements.UNKNOWN and "keeps the batches it receives" in measured.text


def test_worker_memory_is_judged_on_forked_workers_only():
    epoch = _epoch([[1, 20]], length=2000, batches=100)
    spawned = _run(profile="windows", start_method="spawn", memory=_memory(30), loader_epochs=[epoch])
    assert measurements.worker_memory([spawned], CASE_06).verdict == measurements.UNKNOWN


def test_small_lists_on_the_dataset_refute_copy_on_read_large_ones_do_not():
    small = _run(dataset_sizes={"dataset.paths": 128, "dataset.classes": 2})
    measured = measurements.worker_memory([small], CASE_06)
    assert measured.refuted and "`dataset.paths`, has 128 items" in measured.text
    large = _run(dataset_sizes={"dataset.captions": 2_000_000})
    assert measurements.worker_memory([large], CASE_06).verdict == measurements.UNKNOWN


def test_growth_beyond_what_the_datasets_lists_hold_is_not_copy_on_read():
    """12,000 file names in dictionaries (4.6 MB of Python objects, a MedNIST-style list): a worker
    that grew 24 MB over 100 batches (a transform's first allocation, seen as a step on a busy
    machine) cannot have copied it from them; 140 MB of captions (case 06's) can."""
    epoch = _epoch([[1, 20]], length=2000, batches=100)
    names = {"dataset.data": 12_000}
    small = _run(
        memory=_memory(30),
        loader_epochs=[epoch],
        dataset_sizes=names,
        dataset_bytes={"dataset.data": 4_848_000},
    )
    measured = measurements.worker_memory([small], CASE_06)
    assert measured.refuted and "take about 4.6 MB" in measured.text
    assert "is not copy-on-read" in measured.text
    captions = {"dataset.captions": 147_000_000}
    large = _run(
        memory=_memory(30),
        loader_epochs=[epoch],
        dataset_sizes={"dataset.captions": 2_000_000},
        dataset_bytes=captions,
    )
    assert measurements.worker_memory([large], CASE_06).confirmed


def _epochs(*pairs):
    return [{"first_batch_s": first, "duration_s": total, "batches": 4} for first, total in pairs]


def test_later_epochs_waiting_for_workers_confirm_a_slow_start_short_runs_say_nothing():
    case_13 = SimpleNamespace(slow_startup_share=0.15)
    slow = _run(profile="windows", loader_epochs=_epochs((3.0, 4.0), (3.0, 4.0)))
    measured = measurements.startup([slow], case_13)
    assert measured.confirmed and "waited 3.00 s for their first batch, 75% of their time" in measured.text
    quick = _run(loader_epochs=_epochs((0.5, 1.0), (0.05, 1.0)))
    assert measurements.startup([quick], case_13).refuted
    assert measurements.startup([_run(loader_epochs=_epochs((3.0, 4.0)))], case_13).verdict == "unknown"


def test_a_validation_loader_after_a_training_one_is_no_later_epoch():
    """Issue 42: a tutorial iterating its training loader once and its validation loader once has
    no epoch after the first of any loader: nothing to judge, not a slow start every epoch."""
    case_13 = SimpleNamespace(slow_startup_share=0.15)
    train, validation = ({**epoch, "loader": n} for n, epoch in enumerate(_epochs((3.0, 4.0), (3.0, 4.0)), 1))
    once_each = _run(profile="windows", loader_epochs=[train, validation])
    assert measurements.startup([once_each], case_13).verdict == measurements.UNKNOWN
    twice = _run(profile="windows", loader_epochs=[train, validation, {**train}, {**validation}])
    assert measurements.startup([twice], case_13).confirmed, "each loader's second pass is a later epoch"


def test_iterable_workers_with_the_same_first_batch_repeat_the_stream():
    same = measurements.repeated_stream([_run(first_batches={"7": {"0": "ab", "1": "ab"}})])
    assert same.confirmed and "workers 0, 1 of an IterableDataset made the same first batch" in same.text
    assert measurements.repeated_stream([_run(first_batches={"7": {"0": "ab", "1": "cd"}})]).refuted
    assert measurements.repeated_stream([_run()]).verdict == measurements.UNKNOWN


def _stream(shared, whole=True, workers=4, items=320, distinct=None):
    distinct = distinct or items - shared
    return {"9": {"workers": workers, "items": items, "distinct": distinct, "shared": shared, "whole": whole}}


def test_workers_yielding_the_same_items_in_their_own_order_repeat_the_stream():
    """Issue 42: each of 4 workers shuffles its copy of the whole stream: the first batches differ,
    the items do not; that is a repeated stream, never "fine"."""
    measured = measurements.repeated_stream(
        [_run(streams=_stream(80, distinct=80), first_batches={"9": {"0": "a", "1": "b"}})]
    )
    assert measured.confirmed, measured.text
    assert (
        "4 workers of an IterableDataset yielded 320 items, 80 distinct: 80 of them came from more"
        in measured.text
    )


def test_distinct_items_refute_it_only_when_every_share_was_seen_to_its_end():
    whole = measurements.repeated_stream([_run(streams=_stream(0, items=80))])
    assert whole.refuted and "to the end of each worker's share" in whole.text
    stopped = measurements.repeated_stream([_run(streams=_stream(0, items=80, whole=False))])
    assert stopped.verdict == measurements.UNKNOWN and "not seen to their end" in stopped.text
    assert measurements.repeated_stream([_run(streams=_stream(1, items=80))]).refuted, "the data's own repeat"


def test_workers_dropping_more_than_one_process_could_lose_data():
    """Issue 42: drop_last applies to each worker's share: with shares smaller than a batch, whole
    shares are lost, more than the last partial batch one process drops."""
    lost = {"9": {**_stream(0, items=16)["9"], "dropped": 14, "batch_size": 8}}
    measured = measurements.repeated_stream([_run(streams=lost)])
    assert measured.confirmed and "dropped 14 of the 30 items of their shares" in measured.text
    assert "one process would drop at most 7" in measured.text
    one_partial = {"9": {**_stream(0, items=16)["9"], "dropped": 7, "batch_size": 8}}
    assert measurements.repeated_stream([_run(streams=one_partial)]).refuted


def _fetched(profile, method, fetched, python="3.11.7", random=0):
    how = {"launcher": "native", "interpreter": "python", "python": python, "emulated": method != "fork"}
    return _run(profile, method, how=how, samples={"fetched": fetched, "random": random, "varied": 0})


def test_a_sample_that_spawned_workers_make_otherwise_confirms_state_set_by_main():
    fork = _fetched("linux", "fork", {"S/8:1": "a1", "S/8:2": "a2", "S/8:0": "00"})
    spawned = [
        _fetched(p, m, {"S/8:1": "b1", "S/8:2": "b2", "S/8:0": "00"})
        for p, m in (("linux-3.14", "forkserver"), ("macos", "spawn"))
    ]
    measured = measurements.main_state([fork, *spawned])
    assert measured.confirmed, measured.text
    assert "2 of 3" in measured.text and "sample 1 of S" in measured.text


def test_one_run_that_imported_afresh_cannot_tell_main_state_from_data_made_at_random():
    """Unseeded synthetic data, a random split: every run fetches other data; a second run that
    imported the script afresh is the control."""
    fork = _fetched("linux", "fork", {"S/8:1": "a1"})
    measured = measurements.main_state([fork, _fetched("windows-emulated", "spawn", {"S/8:1": "b1"})])
    assert measured.verdict == measurements.UNKNOWN and "no other run" in measured.text
    fork_agrees = _fetched("linux-3.14", "forkserver", {"S/8:1": "a1"})
    both = [fork, _fetched("windows-emulated", "spawn", {"S/8:1": "b1"}), fork_agrees]
    assert measurements.main_state(both).verdict == measurements.UNKNOWN


def test_samples_alike_under_every_start_method_refute_it():
    same = {"S/8:1": "a1", "S/8:2": "a2"}
    measured = measurements.main_state([_fetched("linux", "fork", same), _fetched("macos", "spawn", same)])
    assert measured.refuted, measured.text


def test_spawned_runs_that_disagree_with_each_other_are_chance_not_main_state():
    """Data that varies from run to run (a generator the probe did not see) differs under fork and
    under spawn too; the spawned runs then differ from each other as well: not confirmed."""
    fork = _fetched("linux", "fork", {"S/8:1": "a1"})
    spawned = [
        _fetched("macos", "spawn", {"S/8:1": "b1"}),
        _fetched("windows-emulated", "spawn", {"S/8:1": "c1"}),
    ]
    measured = measurements.main_state([fork, *spawned])
    assert measured.verdict == measurements.UNKNOWN and "varies from run to run" in measured.text


def test_runs_of_other_interpreters_or_drawn_at_random_are_not_compared():
    fork = _fetched("linux", "fork", {"S/8:1": "a1"})
    wine = _fetched("windows", "spawn", {"S/8:1": "b1"}, python="3.13.5")
    measured = measurements.main_state([fork, wine])
    assert measured.verdict == measurements.UNKNOWN and "same interpreter" in measured.text
    drawn = [_fetched("linux", "fork", {}, random=8), _fetched("macos", "spawn", {}, random=8)]
    assert "16 were fetched while a random generator drew" in measurements.main_state(drawn).text


def test_a_reasoned_bound_never_overrides_growth_measured_past_the_threshold():
    """4.6 MB held cannot carry a projection past 30 MB, but a worker measured growing 60 MB grew:
    the measurement stands (the bound limits only what is carried to the rest of the epoch)."""
    epoch = _epoch([[1, 20]], length=2000, batches=100)
    grown = _run(
        memory=_memory(66),
        loader_epochs=[epoch],
        dataset_sizes={"dataset.data": 12_000},
        dataset_bytes={"dataset.data": 4_848_000},
    )
    assert measurements.worker_memory([grown], CASE_06).confirmed


def test_containers_copied_within_the_first_batches_confirm_copy_on_read():
    """Shuffled reads copy a Dataset's objects at once, and the worker levels off: its growth since
    it started serving, within what the containers hold, confirms; the trend alone says settled."""
    epoch = _epoch([[1, 20]], length=3000, batches=1000)
    workers = {"7": {"baseline_mb": 70.0, "peak_mb": 129.0, "growth_mb": 59.0, "late_growth_mb": 0.4,
                     "served_growth_mb": 97.0, "metric": "uss"}}  # fmt: skip
    copied = _run(
        memory={"workers": workers, "processes": {"7": {"role": "worker", "samples": [[0, 1]] * 12}}},
        loader_epochs=[epoch],
        dataset_sizes={"dataset.paths": 1_500_000},
        dataset_bytes={"dataset.paths": 126_000_000},
    )
    measured = measurements.worker_memory([copied], CASE_06)
    assert measured.confirmed and "grew 97 MB after it started serving" in measured.text
    workers["7"]["served_growth_mb"] = 400.0  # more than copying what it holds could give
    assert not measurements.worker_memory([copied], CASE_06).confirmed


def test_the_start_up_share_leaves_out_the_first_batchs_own_work():
    """Samples of seconds each: a later epoch waits 27 s for its first batch, but all but 0.01 s of
    it is that batch's own work, which persistent workers would not remove; 20 s of start-up is
    the start method's cost."""
    case_13 = SimpleNamespace(slow_startup_share=0.15)

    def epochs(startup_s):
        later = {"first_batch_s": 27.0, "last_batch_s": 27.1, "duration_s": 27.5, "startup_s": startup_s}
        return [{"first_batch_s": 29.0, "duration_s": 30.0}, later]

    slow_samples = measurements.startup([_run(loader_epochs=epochs(0.01))], case_13)
    assert slow_samples.refuted and "waited 0.01 s for their first batch, less that" in slow_samples.text
    slow_start = measurements.startup([_run(loader_epochs=epochs(20.0))], case_13)
    assert slow_start.confirmed
    unrecorded = measurements.startup([_run(loader_epochs=epochs(None))], case_13)
    assert unrecorded.confirmed and "for their first batch" in unrecorded.text, "older results: as before"
