"""Reading what the boot probes recorded during a run: worker start-up and DataLoader progress."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..boot import dlp_contract as contract


def read(probe_dir: Path) -> dict[int, list[list[str]]]:
    """{pid: [fields of each event line]} from the <pid>.events files in `probe_dir`."""
    events: dict[int, list[list[str]]] = {}
    for path in probe_dir.glob(f"*{contract.EVENTS_SUFFIX}"):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        events[int(path.stem)] = [line.split() for line in lines if line.strip()]
    return events


def worker_ready(events: dict[int, list[list[str]]], wall_started: float) -> dict[int, float]:
    """{worker pid: seconds from the run's start until it started serving}."""
    return _marked(events, "worker_ready", wall_started)


def worker_warm(events: dict[int, list[list[str]]], wall_started: float) -> dict[int, float]:
    """{worker pid: seconds from the run's start until its warm-up was over (dlp_worker)}."""
    return _marked(events, "worker_warm", wall_started)


def _marked(events: dict[int, list[list[str]]], kind: str, wall_started: float) -> dict[int, float]:
    marked = {pid: _first_mark(lines, kind, wall_started) for pid, lines in events.items()}
    return {pid: at for pid, at in marked.items() if at is not None}


def _first_mark(lines: list[list[str]], kind: str, wall_started: float) -> float | None:
    """Seconds from the run's start to the first event of `kind` among `lines`; None without one."""
    for fields in lines:
        if fields[0] == kind and len(fields) == contract.event_width(kind):
            return round(float(fields[1]) - wall_started, 3)
    return None


def _new_lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The complete lines `path` gained past `offset`, and the offset after them."""
    try:
        with open(path, "rb") as events:
            events.seek(offset)
            chunk = events.read()
    except OSError:
        return [], offset
    complete = chunk[: chunk.rfind(b"\n") + 1]
    return complete.decode("utf-8", errors="replace").splitlines(), offset + len(complete)


class WarmWatch:
    """Follows the processes' events files while the run goes on, for the workers' `worker_warm`
    marks: a file is read from where the last look ended, and no more once its mark was found."""

    def __init__(self, wall_started: float) -> None:
        self.wall_started = wall_started
        self.offsets: dict[Path, int] = {}
        self.done: set[Path] = set()

    def poll(self, probe_dir: Path) -> dict[int, float]:
        """{pid: seconds from the run's start} of the marks found since the last poll."""
        found = {}
        for path in probe_dir.glob(f"*{contract.EVENTS_SUFFIX}"):
            if path in self.done:
                continue
            lines, self.offsets[path] = _new_lines(path, self.offsets.get(path, 0))
            at = _first_mark(
                [line.split() for line in lines if line.strip()], "worker_warm", self.wall_started
            )
            if at is not None:
                self.done.add(path)
                found[int(path.stem)] = at
        return found


FD_POINTS = 60  # (batch, open descriptors) points kept per epoch, spread over it


def _number(field: str) -> int | None:
    return None if field == "-" else int(field)


def loader_epochs(events: dict[int, list[list[str]]], pid: int, wall_started: float) -> list[dict]:
    """Each DataLoader iteration (epoch) of process `pid`: when it started, how long until its
    first batch and until its last (`last_batch_s`), how many batches it delivered, and, once
    exhausted, how long it took in all (`duration_s`, else None: the time after the last batch is
    the workers' shutdown); its length in batches and the soft open-file limit (None where
    unknown), which DataLoader of the process it was (`loader`: 1, 2, … in the order they were
    first iterated), the process's open file descriptors after each batch (`fds`: [batch,
    count]), and its wait for its first batch less that batch's own work (`startup_s`)."""
    epochs: dict[str, dict] = {}
    for fields in events.get(pid, []):
        kind, at = fields[0], float(fields[-1]) - wall_started
        if kind == "iter" and len(fields) == contract.event_width("iter"):
            epochs[fields[1]] = {
                "started_s": round(at, 3),
                "first_batch_s": None,
                "last_batch_s": None,
                "batches": 0,
                "duration_s": None,
                "length": _number(fields[2]),
                "fd_limit": _number(fields[3]),
                "loader": int(fields[4]),
                "fds": [],
            }
        elif kind in ("batch", "end") and fields[1] in epochs:
            epoch = epochs[fields[1]]
            epoch["batches"] = int(fields[2])
            if kind == "end":
                epoch["duration_s"] = round(at - epoch["started_s"], 3)
                continue
            epoch["last_batch_s"] = round(at - epoch["started_s"], 3)
            if epoch["first_batch_s"] is None:
                epoch["first_batch_s"] = epoch["last_batch_s"]
            if len(fields) == contract.event_width("batch") and fields[3] != "-":
                epoch["fds"].append([int(fields[2]), int(fields[3])])
    ready, served, warm = (_marked(events, kind, wall_started) for kind in WORKER_MARKS)
    for epoch in epochs.values():
        epoch["fds"] = _spread(epoch["fds"], FD_POINTS)
        epoch["startup_s"] = _startup(epoch, ready, served, warm)
    return list(epochs.values())


WORKER_MARKS = ("worker_ready", "worker_served", "worker_warm")  # in the order _startup takes them


def _startup(epoch: dict, ready: dict, served: dict, warm: dict) -> float | None:
    """The epoch's wait for its first batch less one batch's own work in its new workers (those
    that started serving between its start and its first batch): the start method's cost (worker
    start, the Dataset sent, worker_init_fn), not a slow sample's. A worker computes its first two
    batches back to back (prefetching), so their gap is one batch's work; a worker with one batch
    only gives the time from its start of service to it (its worker_init_fn in it: counted out,
    never in). None where the epoch started no worker (persistent ones) or none was marked."""
    if epoch["first_batch_s"] is None:
        return None
    start = epoch["started_s"]
    new = [pid for pid, at in ready.items() if start <= at <= start + epoch["first_batch_s"]]
    second = [warm[pid] - served[pid] for pid in new if pid in served and pid in warm]
    first = [served[pid] - ready[pid] for pid in new if pid in served]
    own = min(second or first, default=None)
    return None if own is None else round(max(0.0, epoch["first_batch_s"] - own), 3)


def _spread(points: list, most: int) -> list:
    """At most `most` of the points, evenly spaced, the first and the last kept."""
    if len(points) <= most:
        return points
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def _lines(events: dict[int, list[list[str]]], kind: str):
    """The fields of every `kind` line with the contract's fields (its time last), in any process."""
    width = contract.event_width(kind)
    for lines in events.values():
        yield from (fields for fields in lines if fields[0] == kind and len(fields) == width)


def dataset_sizes(events: dict[int, list[list[str]]]) -> dict[str, int]:
    """{path: length} of the containers the Datasets of the run's loaders hold (the largest seen)."""
    sizes: dict[str, int] = {}
    for _, path, size, _, _ in _lines(events, "size"):
        sizes[path] = max(sizes.get(path, 0), int(size))
    return sizes


def dataset_bytes(events: dict[int, list[list[str]]]) -> dict[str, int]:
    """{path: bytes} of Python objects the containers of `dataset_sizes` hold (the largest seen)."""
    held: dict[str, int] = {}
    for _, path, _, size, _ in _lines(events, "size"):
        held[path] = max(held.get(path, 0), int(size))
    return held


def first_batches(events: dict[int, list[list[str]]]) -> dict[str, dict[str, str]]:
    """{loader seed: {worker id: hash of its first batch}}, for IterableDataset loaders."""
    found: dict[str, dict[str, str]] = {}
    for _, seed, worker, digest, _ in _lines(events, "first_batch"):
        if digest != "-":
            found.setdefault(seed, {})[worker] = digest
    return found


def streams(events: dict[int, list[list[str]]]) -> dict[str, dict]:
    """{loader seed: {"workers", "items", "distinct", "shared", "whole", "dropped", "batch_size"}}
    for IterableDataset loaders: how many workers yielded items, how many items (by a hash of
    their content), how many distinct, how many of those more than one worker yielded, whether
    the record holds every worker's whole share (each stream ended, no item left out), and how
    many items the workers' fetchers dropped at the end of their shares (drop_last), batches of
    `batch_size`."""
    by_seed: dict[str, dict[str, list[str]]] = {}
    cut, ended, dropped, batch = set(), set(), {}, {}
    for _, seed, worker, hashes, _ in _lines(events, "items"):
        digests = hashes.split(",")
        cut |= {(seed, worker)} if "+" in digests or "-" in digests else set()
        by_seed.setdefault(seed, {}).setdefault(worker, []).extend(d for d in digests if d not in ("+", "-"))
    for _, seed, worker, lost, size, _ in _lines(events, "items_end"):
        by_seed.setdefault(seed, {}).setdefault(worker, [])  # a worker whose every item was dropped
        ended.add((seed, worker))
        dropped[seed] = dropped.get(seed, 0) + int(lost)
        batch[seed] = int(size)
    found = {}
    for seed, workers in by_seed.items():
        owners: dict[str, set[str]] = {}
        for worker, digests in workers.items():
            for digest in digests:
                owners.setdefault(digest, set()).add(worker)
        found[seed] = {
            "workers": len(workers),
            "items": sum(len(d) for d in workers.values()),
            "distinct": len(owners),
            "shared": sum(len(o) > 1 for o in owners.values()),
            "whole": all((seed, w) in ended and (seed, w) not in cut for w in workers),
            "dropped": dropped.get(seed, 0),
            "batch_size": batch.get(seed, 0),
        }
    return found


def import_effects(events: dict[int, list[list[str]]]) -> dict:
    """{"processes": how many processes imported the main script again, "effects": [{"what",
    "target", "processes"}]}: what the script's top level did then, to files, folders and the
    network, and in how many of them (harness/boot/dlp_imports.py); {} where none imported it."""
    importing = {pid for pid, lines in events.items() for fields in lines if fields[0] == "import_main"}
    if not importing:
        return {}
    seen: dict[tuple[str, str], set[int]] = {}
    width = contract.event_width("import_effect")
    for pid, lines in events.items():
        done = [(f[1], f[2].replace("%20", " ").replace("%25", "%")) for f in lines
                if f[0] == "import_effect" and len(f) == width]  # fmt: skip
        for what, target in _lasting(done):
            seen.setdefault((what, target), set()).add(pid)
    effects = [
        {"what": what, "target": target, "processes": len(pids)} for (what, target), pids in seen.items()
    ]
    return {"processes": len(importing), "effects": effects}


def _lasting(done: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The effects of one import, less a file it created and then removed (a temporary file, as
    `tempfile.gettempdir()` writes to find a folder it may write in)."""
    created, removed = set(), set()
    for what, target in done:
        if what in ("open-w", "open-x") and target not in removed:
            created.add(target)
        elif what == "remove" and target in created:
            removed.add(target)
    return [(what, target) for what, target in done if target not in removed]


def rng_fingerprints(events: dict[int, list[list[str]]]) -> dict[str, dict[str, dict]]:
    """{loader seed: {generator path: {"states": {worker id: state hash}, "used": [worker ids],
    "ends": {worker id: state hash}}}}: for each loader iteration, the state each generator
    started from in each worker, the workers that drew from it by their first batch, and the state
    it was in then (harness/boot/dlp_rng.py)."""
    found: dict[str, dict[str, dict]] = {}
    for _, seed, worker, path, digest, _ in _lines(events, "rng"):
        entry = found.setdefault(seed, {}).setdefault(path, {"states": {}, "used": [], "ends": {}})
        entry["states"][worker] = digest
    for _, seed, worker, path, digest, _ in _lines(events, "rng_used"):
        if path in found.get(seed, {}):
            found[seed][path]["used"].append(worker)
            found[seed][path]["ends"][worker] = digest
    return found


def logging_records(events: dict[int, list[list[str]]]) -> dict:
    """How the main process set up logging as it started its workers, and what became of the
    records the workers logged (harness/boot/dlp_logging.py): {"setup": {logger: [level, lowest
    handler level or None, propagate, disabled]}, "records": [{"logger", "level", "delivered", "count",
    "workers"}]}; {} where no worker logged a record."""
    setup = {
        logger: [int(level), _number(handler_level), propagate == "1", disabled == "1"]
        for _, logger, level, handler_level, propagate, disabled, _ in _lines(events, "logging_setup")
    }
    grouped: dict[tuple[str, int, bool], dict] = {}
    for _, worker, logger, level, delivered, _ in _lines(events, "log"):
        key = (logger, int(level), delivered == "1")
        entry = grouped.setdefault(
            key, {"logger": logger, "level": int(level), "delivered": key[2], "count": 0, "workers": []}
        )
        entry["count"] += 1
        if worker not in entry["workers"]:
            entry["workers"].append(worker)
    return {"setup": setup, "records": list(grouped.values())} if grouped else {}


SAMPLES_RECORDED = 64  # sample and batch digests a run keeps: enough to compare, small in results
VARIED = "~"  # the digest of a key whose data differed within the run (not comparable)


def samples(events: dict[int, list[list[str]]]) -> dict:
    """What the workers of map-style Datasets fetched (harness/boot/dlp_samples.py): {"fetched":
    {"<dataset>:<index>" or "<dataset>:b<indices hash>": digest}, "random": samples fetched while
    a generator drew, "varied": keys whose data differed within the run}; {} where none was
    recorded. Samples fetched while a generator drew are left out (random data: not comparable);
    a key seen twice with different data keeps VARIED."""
    fetched: dict[str, str] = {}
    drawn = 0
    for _, dataset, _worker, indices, digests, batch, drew, _ in sorted(
        _lines(events, "samples"), key=lambda fields: float(fields[-1])
    ):
        keys = [f"{dataset}:{index}" for index in indices.split(",")]
        if drew == "1":
            drawn += len(keys)
            continue
        batch_key = f"{dataset}:b" + hashlib.sha1(indices.encode()).hexdigest()[:10]
        for key, digest in [*zip(keys, digests.split(","), strict=False), (batch_key, batch)]:
            if digest == "-" or (key not in fetched and len(fetched) >= SAMPLES_RECORDED):
                continue
            fetched[key] = digest if fetched.get(key, digest) == digest else VARIED
    if not fetched and not drawn:
        return {}
    varied = sum(digest == VARIED for digest in fetched.values())
    return {"fetched": fetched, "random": drawn, "varied": varied}


class ProgressWatch:
    """Follows the main process's events file while the run goes on: batches delivered, last progress."""

    def __init__(self, started: float) -> None:
        self.offset = 0
        self.batches = 0
        self.waiting = False  # the main process asked for a batch and has not got it yet
        self.last_progress = started  # time.monotonic() of the last epoch start or batch
        self.first_batch: float | None = None  # time.monotonic() of the first batch
        self._loader_of: dict[str, str] = {}  # epoch id -> which loader (iter events)
        self._ended: dict[str, int] = {}  # loader -> its epochs that ran to their end
        self._open: set[str] = set()  # the epochs begun and neither ended nor shut down

    @property
    def iterating(self) -> bool:
        """An epoch is under way: begun, and neither exhausted nor its workers shut down (their
        shutdown waits a bounded time for each worker: no batch is asked for then)."""
        return bool(self._open)

    @property
    def later_epoch_ended(self) -> bool:
        """A loader ran a second epoch to its end: what its start-up measurement needs."""
        return any(count >= 2 for count in self._ended.values())

    def poll(self, path: Path, now: float) -> None:
        """Reads what `path` (the events file of the main process) gained since the last poll."""
        lines, self.offset = _new_lines(path, self.offset)
        for line in lines:
            fields = line.split()
            kind = fields[0] if fields else ""
            if kind == "iter" and len(fields) == contract.event_width("iter"):
                self._loader_of[fields[1]] = fields[4]
                self._open.add(fields[1])
            elif kind == "end" and len(fields) > 1 and fields[1] in self._loader_of:
                loader = self._loader_of[fields[1]]
                self._ended[loader] = self._ended.get(loader, 0) + 1
            if kind in ("end", "shutdown") and len(fields) > 1:
                self._open.discard(fields[1])
            if kind in ("iter", "batch"):
                self.last_progress = now
                self.batches += kind == "batch"
                if kind == "batch" and self.first_batch is None:
                    self.first_batch = now
            if kind in ("want", "batch", "end"):
                self.waiting = kind == "want"
