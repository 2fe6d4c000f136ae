"""Digests of the samples a map-style Dataset's worker fetched, by index, and whether the worker
drew random numbers while it fetched them.

    samples <dataset> <worker> <indices> <digests> <batch> <drew>
            one batch: the Dataset's class and length (`Samples/8`), the worker, the sample
            indices and a digest of each sample by content (comma-separated), a digest of the
            collated batch, and 1 where a random generator's state changed during the fetch
            (the global ones or one the Dataset holds: dlp_rng) or the operating system's
            entropy was read (a generator made afresh, unseeded), else 0

The harness compares the same index across runs under different start methods (harness/
measurements/samples.py): a sample that differs under fork and under spawn, with nothing drawn
at random for it, was made from state that the main process set and a spawned worker lacks.
A worker records its first SAMPLES_KEPT samples only; after them it costs nothing.
"""

import functools
import hashlib
import sys

SAMPLES_KEPT = 64
_ENTROPY_READS = [0]  # os.urandom calls in this process (an unseeded generator made afresh)


def watch(probe):
    """Patches torch's map-style fetcher, once per worker process, to record through `probe` (the
    stand-in for the loader's collate_fn: dlp_worker._WorkerProbe)."""
    fetch_module = sys.modules.get("torch.utils.data._utils.fetch")
    fetcher = getattr(fetch_module, "_MapDatasetFetcher", None)
    if fetcher is None or getattr(fetcher.fetch, "_dlp", False):
        return
    original = fetcher.fetch
    _count_entropy_reads()

    @functools.wraps(original)
    def fetch(self, possibly_batched_index):
        watched = getattr(self.collate_fn, "__self__", None)
        if watched is not probe or probe.samples_kept >= SAMPLES_KEPT:
            return original(self, possibly_batched_index)
        import dlp_rng

        before = dlp_rng.fingerprints(self.dataset), _ENTROPY_READS[0]
        indices = list(possibly_batched_index) if self.auto_collation else [possibly_batched_index]
        probe.fetching = indices
        try:
            return original(self, possibly_batched_index)
        finally:
            probe.fetching = None
            _record(probe, self.dataset, indices, _drew(before, dlp_rng.fingerprints(self.dataset)))

    fetch._dlp = True
    fetcher.fetch = fetch


def _drew(before, now):
    """Whether a generator that existed before the fetch changed (a module imported meanwhile
    brings a new one: not a draw), or the operating system's entropy was read."""
    generators, reads = before
    return reads != _ENTROPY_READS[0] or any(
        now.get(path, state) != state for path, state in generators.items()
    )


def _count_entropy_reads():
    """Counts reads of the operating system's entropy: os.urandom, and random's own reference to
    it (SystemRandom, secrets, numpy's SeedSequence() without a seed)."""
    import os
    import random

    def counted(read):
        @functools.wraps(read)
        def urandom(size):
            _ENTROPY_READS[0] += 1
            return read(size)

        return urandom

    os.urandom = counted(os.urandom)
    if hasattr(random, "_urandom"):
        random._urandom = counted(random._urandom)


def _record(probe, dataset, indices, drew):
    fetched = probe.fetched
    probe.fetched = None
    if fetched is None or len(fetched[0]) != len(indices):
        return  # the fetch raised, or its collate_fn was not ours
    digests, batch = fetched
    probe.samples_kept += len(indices)
    probe.record(
        "samples",
        _dataset_tag(dataset),
        probe.worker_id,
        ",".join(str(_index(i)) for i in indices),
        ",".join(digests),
        batch,
        int(drew),
    )


def _index(index):
    """An index as one field: a number, or a hash of anything else (a key of a dict-like Dataset)."""
    if isinstance(index, int):
        return index
    return "k" + hashlib.sha1(repr(index).encode()).hexdigest()[:10]


def _dataset_tag(dataset):
    try:
        length = len(dataset)
    except Exception:  # a Dataset without __len__
        length = "-"
    return f"{type(dataset).__qualname__}/{length}".replace(" ", "_")
