"""Trends over batches and epochs: open descriptors, worker memory, the wait for workers."""

from __future__ import annotations

import statistics

import psutil

from ..results import RunResult
from ..run.memory import BASELINE_SAMPLES, MB
from .verdict import CONFIRMED, REFUTED, UNKNOWN, Measurement, worst

FD_RISE_PER_BATCH = 0.2  # open descriptors a batch: less is no trend
FD_MIN_POINTS = 8  # batches with a descriptor count: fewer is no sample
MEMORY_MIN_SEEN_MB = 8.0  # a worker's growth below this is noise (allocator, first batches)
SHUTDOWN_NOTED_S = 1.0  # an epoch that goes on this long after its last batch says so


def open_files(results: list[RunResult], case=None) -> Measurement:
    """A steady rise of the main process's open descriptors, carried to the open-file limit and
    to the epoch's length."""
    found = []
    for result in results:
        for epoch in result.loader_epochs:
            points = epoch.get("fds") or []
            if len(points) >= FD_MIN_POINTS and epoch.get("fd_limit"):
                found.append(_fd_trend(result.profile, points, epoch["fd_limit"], epoch.get("length")))
    return worst(found, f"no epoch delivered {FD_MIN_POINTS} batches with a count of open descriptors")


def _slope(points: list[list[int]]) -> float:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0


def _rise_per_batch(points: list[list[int]]) -> float:
    """Descriptors opened per batch, past the workers' start-up (the first quarter)."""
    return _slope(points[len(points) // 4 :])


def _fd_trend(profile: str, points: list[list[int]], limit: int, length: int | None) -> Measurement:
    (first_batch, first), (last_batch, last) = points[0], points[-1]
    slope = _rise_per_batch(points)
    seen = f"open descriptors went from {first} to {last} over batches {first_batch}–{last_batch}"
    if slope < FD_RISE_PER_BATCH:
        return Measurement(REFUTED, f"{profile}: {seen}: no steady rise")
    reached = last_batch + max(0, round((limit - last) / slope))
    rate = (
        f"{seen} ({slope:.1f} a batch); at this rate the {limit} open-file limit is reached after "
        f"about {reached} batches"
    )
    if length is None:
        return Measurement(UNKNOWN, f"{profile}: {rate}; the epoch's length is not known")
    at_end = round(last + slope * (length - last_batch))
    if reached <= length:
        return Measurement(CONFIRMED, f"{profile}: {rate}; an epoch here is {length}")
    return Measurement(
        REFUTED,
        f"{profile}: {seen} ({slope:.1f} a batch): about {at_end} at the end of its {length} batches, "
        f"under the limit of {limit}",
    )


def worker_memory(results: list[RunResult], case=None) -> Measurement:
    """Forked workers' memory growth per batch, carried to the epoch's length and compared with the
    case's threshold (and, for all workers together, with the memory available). Only forked
    workers: copy-on-read is fork's; a spawned worker's USS also counts the shared-memory files it
    writes batches into (file_system strategy), which a kept batch keeps alive."""
    threshold = getattr(case, "leak_threshold_mb", None) or 0.0
    sizes = [_small_containers(r) for r in results if r.dataset_sizes]
    bounds = [_held_bound(r, threshold) for r in results if r.dataset_bytes]
    found = []
    for result in (r for r in results if r.start_method == "fork"):
        epochs = [e for e in result.loader_epochs if e.get("batches")]
        memory = result.memory or {}
        workers = memory.get("workers") or {}  # the summary recorded with the series
        samples = [
            len(p["samples"]) for p in (memory.get("processes") or {}).values() if p["role"] == "worker"
        ]
        if not epochs or not workers or max(samples, default=0) < BASELINE_SAMPLES + 1:
            continue
        if any(w["metric"] != "uss" for w in workers.values()):
            found.append(Measurement(UNKNOWN, f"{result.profile}: worker memory could be read only as RSS"))
            continue
        if _keeps_batches(result):
            found.append(Measurement(UNKNOWN, f"{result.profile}: {KEPT_BATCHES}"))
            continue
        copied = _copied(result.profile, workers, threshold, _held_mb(result), epochs[0]["batches"])
        trend = _memory_trend(result.profile, epochs[0], workers, threshold, _held_mb(result))
        found.append(copied or trend)
    measured = any(m.confirmed for m in found)  # a reasoned bound never overrides a measurement
    if bounds and all(bounds) and not measured:
        return bounds[0]  # all its containers hold, copied whole, stays under the threshold
    if sizes and all(m.refuted for m in sizes) and not measured:
        return sizes[0]  # small lists cannot grow a worker by copy-on-read, whatever its noise
    if found:  # measured: a container's size, a count, does not override what the workers showed
        return worst(found, "")
    return worst(sizes, "no forked worker's memory was sampled long enough")


KEPT_BATCHES = (
    "the main process keeps the batches it receives (its open descriptors rise), which keeps the "
    "workers' shared memory mapped: their growth is not copy-on-read"
)


def _keeps_batches(result: RunResult) -> bool:
    """The main process's open descriptors rise steadily: it keeps every batch (case 12)."""
    return any(
        len(points) >= FD_MIN_POINTS and _rise_per_batch(points) >= FD_RISE_PER_BATCH
        for points in (epoch.get("fds") or [] for epoch in result.loader_epochs)
    )


# Reading, a worker copies no more than the pages that hold the Dataset's Python objects: twice
# what they take (reasoned: a page holding one of them is copied whole, and they were mostly
# allocated together, as a list is built) bounds what copy-on-read can add to a worker. The probe
# counts every container of Python objects it finds (lists, tuples, dicts, sets, deques, numpy
# object arrays, a DataFrame's object columns: dlp_rng.containers); the bound refutes only where no
# measured growth confirms.
COPIED_PAGES_FACTOR = 2


LARGE_CONTAINER = 10_000  # items: a Dataset's lists below this size cannot grow a worker much


def _small_containers(result: RunResult) -> Measurement:
    """Refuted where every container of Python objects the Dataset holds is small; else no verdict."""
    path, size = max(result.dataset_sizes.items(), key=lambda item: item[1])
    if size == 0:
        return Measurement(REFUTED, f"{result.profile}: the Dataset holds no container of Python objects")
    if size < LARGE_CONTAINER:
        return Measurement(
            REFUTED,
            f"{result.profile}: the largest container of Python objects the Dataset holds, `{path}`, "
            f"has {size} items",
        )
    return Measurement(UNKNOWN, f"{result.profile}: `{path}` holds {size} items")


def _held_mb(result: RunResult) -> float | None:
    """What the Python objects in the Dataset's containers take (MB), where it was measured."""
    return sum(result.dataset_bytes.values()) / MB if result.dataset_bytes else None


def _copied(profile: str, workers: dict, threshold: float, held_mb: float | None, batches: int):
    """Confirmed where a worker grew past the threshold since it started serving, by no more than
    copy-on-read of the Dataset's containers could give (COPIED_PAGES_FACTOR times what they hold):
    a fast loader with shuffled reads copies them within its first batches, then levels off, which
    the trend alone reads as a worker that settled. None where that is not so."""
    grown = [w["served_growth_mb"] for w in workers.values() if w.get("served_growth_mb") is not None]
    if held_mb is None or not grown or not threshold <= max(grown) <= COPIED_PAGES_FACTOR * held_mb:
        return None
    return Measurement(
        CONFIRMED,
        f"{profile}: a worker grew {max(grown):.0f} MB after it started serving ({batches} batches), "
        f"reading a Dataset whose containers hold about {held_mb:.0f} MB of Python objects: it copied "
        f"the pages it read (copy-on-read), each forked worker its own copy (threshold {threshold:g} MB)",
    )


def _held_bound(result: RunResult, threshold: float) -> Measurement | None:
    """Refuted where all the Dataset's containers hold could not reach the threshold even copied whole:
    a worker's growth past that is something else (a transform's first allocation, an allocator's
    pool); None where it could, or where what they hold was not measured."""
    if not result.dataset_bytes:
        return None
    path, size = max(result.dataset_sizes.items(), key=lambda item: item[1], default=("dataset", 0))
    held_mb = sum(result.dataset_bytes.values()) / MB
    if COPIED_PAGES_FACTOR * held_mb >= threshold:
        return None
    return Measurement(
        REFUTED,
        f"{result.profile}: `{path}` holds {size} items, but the Python objects in the Dataset's "
        f"containers take about {held_mb:.1f} MB: even copied whole (their pages, about "
        f"{COPIED_PAGES_FACTOR * held_mb:.0f} MB) they stay under {threshold:g} MB, so a worker's "
        "growth past that is not copy-on-read",
    )


def _steady_growth(worker: dict) -> float:
    """What a worker's growth says of the rest of the epoch: its growth, but no more than twice its
    growth over the second half of the window (copy-on-read goes on as the worker reads; a worker
    that grew at its start and then settled does not)."""
    late = worker.get("late_growth_mb")
    return worker["growth_mb"] if late is None else min(worker["growth_mb"], 2 * late)


def _memory_trend(
    profile: str, epoch: dict, workers: dict, threshold: float, held_mb: float | None = None
) -> Measurement:
    """The growth measured over the window, carried to the epoch's length. The carrying is reasoned:
    where what the Dataset's containers hold is known, copy-on-read cannot carry a worker past
    COPIED_PAGES_FACTOR times that, so the projection stops there; the growth measured stands."""
    worst = max(workers.values(), key=_steady_growth)
    grew = _steady_growth(worst)
    batches, length = epoch["batches"], epoch.get("length")
    seen = f"a worker grew {worst['growth_mb']:.0f} MB over {batches} batches"
    if grew < worst["growth_mb"] / 2:
        seen += (
            f", only {worst['late_growth_mb']:.0f} MB of it in the second half: it settled after its start"
        )
    if length is None:
        verdict = CONFIRMED if grew >= threshold else UNKNOWN
        return Measurement(verdict, f"{profile}: {seen}; the epoch's length is not known")
    projected = grew * length / batches
    if held_mb is not None and grew < threshold <= projected and COPIED_PAGES_FACTOR * held_mb < threshold:
        return Measurement(
            REFUTED,
            f"{profile}: {seen}, carried to about {projected:.0f} MB over its {length}-batch epoch; "
            f"but the Python objects in the Dataset's containers take about {held_mb:.1f} MB: even "
            f"copied whole (their pages, about {COPIED_PAGES_FACTOR * held_mb:.0f} MB) they stay under "
            f"{threshold:g} MB, so the growth to come is not copy-on-read",
        )
    if projected < threshold:
        return Measurement(
            REFUTED,
            f"{profile}: {seen}: about {projected:.0f} MB over its {length}-batch epoch, "
            f"under {threshold:g} MB",
        )
    available = psutil.virtual_memory().available / MB
    total = projected * len(workers)
    carried = (
        f"{seen}; at this rate about {projected:.0f} MB each over an epoch of {length} batches "
        f"({len(workers)} worker(s) together: {total:.0f} MB; {available:.0f} MB available here)"
    )
    if grew < MEMORY_MIN_SEEN_MB and batches < length:
        return Measurement(UNKNOWN, f"{profile}: {carried}: too little seen to tell; run with --full")
    return Measurement(CONFIRMED, f"{profile}: {carried}")


def startup_wait(epochs: list[dict], first_batch: bool = False) -> tuple[float, float] | None:
    """(seconds, share): how long the complete epochs of a loader after its first waited, on
    average, for their workers to start serving (started again, the Dataset sent again: the start
    method's cost), and the share that was of their time up to their last batch; None without such
    an epoch. The first batch's own work is left out (a slow sample is no start-up cost) where the
    workers recorded it (`startup_s`); elsewhere, and with `first_batch`, the wait is until the
    first batch. The workers' shutdown after the last batch is left out too: it is not a
    start-up cost (and under spawn with file_system on Linux and macOS it can take 5 s a worker:
    `shutdown_wait`)."""
    later = _later_epochs(epochs)
    if not later:
        return None
    waited = sum(_started_after(e, first_batch) for e in later)
    served = sum(e.get("last_batch_s") or e["duration_s"] for e in later)  # older results lack it
    return waited / len(later), waited / served


def _started_after(epoch: dict, first_batch: bool) -> float:
    """Seconds the epoch waited for its workers (`startup_s`), else for its first batch."""
    startup = epoch.get("startup_s")
    return epoch["first_batch_s"] if first_batch or startup is None else startup


def _later_epochs(epochs: list[dict]) -> list[dict]:
    """The complete epochs that got a batch, of a loader iterated before."""
    return [
        e
        for n, e in enumerate(epochs)
        if e["duration_s"] and e["first_batch_s"] is not None and _iterated_before(e, epochs[:n])
    ]


def _own_work_left_out(epochs: list[dict]) -> bool:
    """Whether every later epoch's wait was measured without its first batch's own work."""
    return all(e.get("startup_s") is not None for e in _later_epochs(epochs))


def _iterated_before(epoch: dict, earlier: list[dict]) -> bool:
    """Whether the epoch's DataLoader had been iterated before it: a later epoch of the same loader,
    not the first pass of another (a validation loader after a training one). Results recorded
    before loaders were told apart have no `loader`: one loader, as then assumed."""
    return any(e.get("loader") == epoch.get("loader") for e in earlier)


def shutdown_wait(epochs: list[dict]) -> float | None:
    """How long, on average, a complete epoch went on after its last batch (its workers' shutdown)."""
    ended = [e for e in epochs if e["duration_s"] and e.get("last_batch_s") is not None]
    if not ended:
        return None
    return sum(e["duration_s"] - e["last_batch_s"] for e in ended) / len(ended)


def startup_figures(epochs: list[dict], waited: tuple[float, float]) -> str:
    """The later epochs' start-up wait (`startup_wait(epochs)`) in words, with the shutdown wait
    where it is long."""
    seconds, share = waited
    until = (
        "for their first batch, less that batch's own work"
        if _own_work_left_out(epochs)
        else "for their first batch"
    )
    figures = (
        f"epochs after the first waited {seconds:.2f} s {until}, "
        f"{share:.0%} of their time up to their last batch"
    )
    shutdown = shutdown_wait(epochs)
    if shutdown is not None and shutdown >= SHUTDOWN_NOTED_S:
        figures += f"; each epoch then waited {shutdown:.1f} s for its workers to exit"
    return figures


def startup(results: list[RunResult], case=None) -> Measurement:
    """Later epochs that spend a large share of their time waiting for their first batch: workers
    started again, the Dataset sent again, each epoch."""
    threshold = getattr(case, "slow_startup_share", None) or 0.0
    found = []
    for result in results:
        waited = startup_wait(result.loader_epochs)
        if waited is None:
            continue
        seen = f"{result.profile}: {startup_figures(result.loader_epochs, waited)}"
        verdict = CONFIRMED if waited[1] > threshold else REFUTED
        found.append(Measurement(verdict, f"{seen} (threshold {threshold:.0%})"))
    return worst(found, "no loader of any run completed a second epoch (--full runs to the end)")
