"""Probes inside each DataLoader worker: what it starts with and its first batch.

`patch(module, record)` wraps torch's `_worker_loop` so that, in the worker, the events below are
recorded (dlp_probes lists the lines):
    worker_ready     as the loop starts (the Dataset unpickled, before worker_init_fn)
    worker_served    once it collated its first batch; with worker_warm, one batch's own work
    worker_warm      once it collated WARM_BATCHES batches: what a worker imports and allocates
                     as it starts serving (its first transforms, torch's allocator) is behind it
    rng, size        after torch seeded the worker and the script's worker_init_fn ran: the
                     fingerprints of its random generators, the sizes of the Dataset's lists
                     (items, and about how many bytes of Python objects they hold)
    rng_used         after its first batch: the generators whose state changed since (drawn
                     from), with a hash of their state then: what the worker drew
    first_batch      for an IterableDataset: a hash of its first batch, by content
    items            for an IterableDataset: a hash of each item of a batch, by content (the
                     first ITEMS_KEPT items of the worker's share; "+" once more were left out)
    items_end        for an IterableDataset: the worker's share ended (its fetcher stopped),
                     with the items it drew that no batch took (drop_last) and the batch size
    log              each record the worker logs, and whether a handler took it (dlp_logging)
    samples          for a map-style Dataset: a digest of each sample by index, of the batch, and
                     whether the worker drew random numbers meanwhile (dlp_samples)
"""

import functools
import hashlib
import inspect
import pickle
import sys

ITERABLE = 1  # torch's _DatasetKind.Iterable
ITEMS_KEPT = 2048  # items of an IterableDataset worker's share hashed: the first ones
ITEMS_PER_LINE = 64
WARM_BATCHES = 2  # batches a worker makes before its memory is its own steady state


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
            if probe.iterable:
                _watch_stream_end()
            else:
                import dlp_samples

                dlp_samples.watch(probe)
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
        self.batched = arguments.get("auto_collation", True)  # collate_fn gets a list of items
        self.started = {}
        self.first = True
        self.items = 0  # items of its share hashed so far
        self.items_full = False
        self.collated = 0  # items of its share that went into a batch
        self.fetching = None  # a map-style Dataset: the indices of the batch being fetched
        self.fetched = None  # … and, once collated, ([a digest of each sample], the batch's digest)
        self.samples_kept = 0
        self.batches = 0  # batches collated

    def init_fn(self, worker_id):
        if self.script_init is not None:
            self.script_init(worker_id)
        import dlp_rng

        self.started = dlp_rng.fingerprints(self.dataset)
        for path, digest in self.started.items():
            self.record("rng", self.seed, worker_id, _field(path), digest)
        if worker_id == 0:
            # A Dataset that holds no container of Python objects is recorded as one of 0 items:
            # nothing of it for copy-on-read to touch (numeric arrays, tensors, paths).
            for path, value in (dlp_rng.containers(self.dataset) or {"dataset": ()}).items():
                self.record("size", _field(path), dlp_rng.length(value), dlp_rng.held_bytes(value))

    def collate_fn(self, data):
        items = data if self.batched and isinstance(data, list) else [data]
        # Hashed before the script's collate_fn sees them: it may change them in place.
        sample_digests = [_digest(item, 12) for item in items] if self.fetching is not None else None
        batch = self.script_collate(data)
        if sample_digests is not None:
            self.fetched = (sample_digests, _digest(batch, 12))
        digests = None
        if self.iterable:
            self.collated += len(items)
            digests = self._record_items(items)
        if self.first:
            self.first = False
            self._after_first_batch(digests)
        self.batches += 1
        if self.batches == 1:
            self.record("worker_served")
        if self.batches == WARM_BATCHES:
            self.record("worker_warm")
        return batch

    def _record_items(self, items):
        """A hash of each item, by content, while fewer than ITEMS_KEPT were; then "+" once.
        Returns the hashes (None once the share's first ITEMS_KEPT were hashed)."""
        if self.items_full:
            return None
        room = ITEMS_KEPT - self.items
        digests = [_digest(item, 12) for item in items[:room]]
        self.items += len(digests)
        if len(items) > room:
            digests.append("+")
            self.items_full = True
        for start in range(0, len(digests), ITEMS_PER_LINE):
            self.record("items", self.seed, self.worker_id, ",".join(digests[start : start + ITEMS_PER_LINE]))
        return digests

    def stream_ended(self, drawn, batch_size):
        """Its share ended after `drawn` items: those no batch took were dropped (drop_last)."""
        self.record("items_end", self.seed, self.worker_id, max(drawn - self.collated, 0), batch_size)

    def _after_first_batch(self, item_digests):
        """The generators it drew from; for an IterableDataset, its first batch's hash (made of
        its items' hashes: equal batches hash alike)."""
        import dlp_rng

        if item_digests is not None:
            unread = "-" in item_digests  # an item that cannot be read: no comparison
            self.record("first_batch", self.seed, self.worker_id, "-" if unread else _digest(item_digests))
        now = dlp_rng.fingerprints(self.dataset)
        for path, digest in self.started.items():
            if now.get(path, digest) != digest:
                self.record("rng_used", self.seed, self.worker_id, _field(path), now[path])


def _field(path):
    return path.replace(" ", "_")


def _watch_stream_end():
    """Records, through the probe that stands in for its collate_fn, when an IterableDataset
    worker's fetcher stops: its share ended (patched once per worker process)."""
    fetch_module = sys.modules.get("torch.utils.data._utils.fetch")
    fetcher = getattr(fetch_module, "_IterableDatasetFetcher", None)
    if fetcher is None or getattr(fetcher.fetch, "_dlp", False):
        return
    original = fetcher.fetch

    @functools.wraps(original)
    def fetch(self, possibly_batched_index):
        if not isinstance(self.dataset_iter, _Counted):
            self.dataset_iter = _Counted(self.dataset_iter)
        try:
            return original(self, possibly_batched_index)
        except StopIteration:
            probe = getattr(self.collate_fn, "__self__", None)
            if isinstance(probe, _WorkerProbe) and not getattr(self, "_dlp_ended", False):
                self._dlp_ended = True
                batch_size = len(possibly_batched_index) if self.auto_collation else 1
                probe.stream_ended(self.dataset_iter.count, batch_size)
            raise

    fetch._dlp = True
    fetcher.fetch = fetch


class _Counted:
    """An iterator that counts the items it gave."""

    def __init__(self, iterator):
        self.iterator, self.count = iterator, 0

    def __iter__(self):
        return self

    def __next__(self):
        item = next(self.iterator)
        self.count += 1
        return item


def _digest(data, length=16):
    """A hash of `data` by content: two equal tensors (or arrays, lists, dicts of them) hash alike
    in any process ("-" where it cannot be read). A pickle would not do: torch's pickle of a
    tensor names its storage by its address in memory (observed, torch 2.13.0), so two equal
    tensors never pickle alike."""
    hashed = hashlib.sha1()
    try:
        _feed(data, hashed, 0)
    except Exception:  # items that cannot be read: no comparison
        return "-"
    return hashed.hexdigest()[:length]


def _feed(obj, hashed, depth):
    if depth > 8:
        raise ValueError("nested too deep")
    torch, numpy = sys.modules.get("torch"), sys.modules.get("numpy")
    if torch is not None and isinstance(obj, torch.Tensor):
        tensor = obj.detach().cpu().contiguous()
        hashed.update(f"T{tensor.dtype}{tuple(tensor.shape)}".encode())
        hashed.update(
            bytes(tensor.reshape(-1).view(torch.uint8).numpy())
            if tensor.dim()
            else repr(tensor.item()).encode()
        )
    elif numpy is not None and isinstance(obj, numpy.ndarray):
        hashed.update(f"A{obj.dtype}{obj.shape}".encode())
        hashed.update(numpy.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, dict):
        hashed.update(b"D")
        for key in sorted(obj, key=repr):
            hashed.update(repr(key).encode())
            _feed(obj[key], hashed, depth + 1)
    elif isinstance(obj, (list, tuple)):
        hashed.update(b"L%d" % len(obj))
        for value in obj:
            _feed(value, hashed, depth + 1)
    elif isinstance(obj, str):
        # A path by its last part: the run's folder (a temporary one) differs from run to run.
        hashed.update(repr(obj.replace("\\", "/").rsplit("/", 1)[-1]).encode())
    elif isinstance(obj, (bytes, int, float, bool)) or obj is None:
        hashed.update(repr(obj).encode())
    else:
        hashed.update(pickle.dumps(obj))
