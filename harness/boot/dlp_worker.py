"""Probes inside each DataLoader worker: what it starts with and its first batch.

`patch(module, record)` wraps torch's `_worker_loop` so that, in the worker, the events below are
recorded (dlp_probes lists the lines):
    worker_ready     as the loop starts (the Dataset unpickled, before worker_init_fn)
    rng, size        after torch seeded the worker and the script's worker_init_fn ran: the
                     fingerprints of its random generators, the sizes of the Dataset's lists
    rng_used         after its first batch: the generators whose state changed since (drawn from)
    first_batch      for an IterableDataset: a hash of its first batch
    log              each record the worker logs, and whether a handler took it (dlp_logging)
"""

import functools
import hashlib
import inspect
import pickle

ITERABLE = 1  # torch's _DatasetKind.Iterable


def patch(module, record):
    original = getattr(module, "_worker_loop", None)
    if original is None:  # another torch layout: no marks, the harness falls back
        return
    signature = inspect.signature(original)

    @functools.wraps(original)
    def _worker_loop(*args, **kwargs):
        record("worker_ready")
        try:
            bound = signature.bind(*args, **kwargs)
            import dlp_logging

            dlp_logging.watch_worker(record, bound.arguments["worker_id"])
            probe = _WorkerProbe(bound.arguments, record)
            bound.arguments["init_fn"], bound.arguments["collate_fn"] = probe.init_fn, probe.collate_fn
            args, kwargs = bound.args, bound.kwargs
        except (TypeError, KeyError):  # another torch layout: no fingerprints
            pass
        return original(*args, **kwargs)

    module._worker_loop = _worker_loop


class _WorkerProbe:
    """Stands in for the loader's worker_init_fn and collate_fn in one worker, calling them."""

    def __init__(self, arguments, record):
        self.record = record
        self.script_init, self.script_collate = arguments["init_fn"], arguments["collate_fn"]
        self.dataset, self.seed = arguments["dataset"], arguments["base_seed"]
        self.worker_id = arguments["worker_id"]
        self.iterable = arguments["dataset_kind"] == ITERABLE
        self.started = {}
        self.first = True

    def init_fn(self, worker_id):
        if self.script_init is not None:
            self.script_init(worker_id)
        import dlp_rng

        self.started = dlp_rng.fingerprints(self.dataset)
        for path, digest in self.started.items():
            self.record("rng", self.seed, worker_id, _field(path), digest)
        if worker_id == 0:
            for path, size in dlp_rng.list_sizes(self.dataset).items():
                self.record("size", _field(path), size)

    def collate_fn(self, data):
        batch = self.script_collate(data)
        if self.first:
            self.first = False
            self._after_first_batch(data)
        return batch

    def _after_first_batch(self, data):
        import dlp_rng

        if self.iterable:
            self.record("first_batch", self.seed, self.worker_id, _digest(data))
        now = dlp_rng.fingerprints(self.dataset)
        for path in (p for p, digest in self.started.items() if now.get(p) != digest):
            self.record("rng_used", self.seed, self.worker_id, _field(path))


def _field(path):
    return path.replace(" ", "_")


def _digest(data):
    try:
        return hashlib.sha1(pickle.dumps(data)).hexdigest()[:16]
    except Exception:  # items that do not pickle: no comparison
        return "-"
