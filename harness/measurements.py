"""Measurements that confirm or refute a pitfall that only shows over time or by chance: the
workers' random generators, the main process's open file descriptors, the workers' memory, the
later epochs' wait for workers.

Each takes the judged runs of one script and the case (for its thresholds) and returns a
Measurement: `confirmed` (the pitfall is there, or predicted within an epoch), `refuted`
(measured, and fine here), or `unknown` (nothing could be measured: the text says why). A case
names its measurement in case.toml ([diagnose] `measure`); `check` uses it where lint suspects
the pitfall and where it does not.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from .results import RunResult
from .run.memory import BASELINE_SAMPLES, MB

CONFIRMED, REFUTED, UNKNOWN = "confirmed", "refuted", "unknown"
FD_RISE_PER_BATCH = 0.2  # open descriptors a batch: less is no trend
FD_MIN_POINTS = 8  # batches with a descriptor count: fewer is no sample
MEMORY_MIN_SEEN_MB = 8.0  # a worker's growth below this is noise (allocator, first batches)
SHUTDOWN_NOTED_S = 1.0  # an epoch that goes on this long after its last batch says so
# Items of an IterableDataset that more than one worker yielded: this many, and this share of a
# worker's items, is a stream repeated (fewer can be the data's own repeats).
STREAM_SHARED_MIN = 2
STREAM_SHARED_SHARE = 0.25


@dataclass(frozen=True)
class Measurement:
    verdict: str  # CONFIRMED, REFUTED or UNKNOWN
    text: str  # the figures, in words

    @property
    def confirmed(self) -> bool:
        return self.verdict == CONFIRMED

    @property
    def refuted(self) -> bool:
        return self.verdict == REFUTED


def _worst(measurements: list[Measurement], nothing: str) -> Measurement:
    """The run that shows most: a confirmation, else what could not be told, else a refutation."""
    for verdict in (CONFIRMED, UNKNOWN, REFUTED):
        found = [m for m in measurements if m.verdict == verdict]
        if found:
            return found[0]
    return Measurement(UNKNOWN, nothing)


def randomness(results: list[RunResult], case=None) -> Measurement:
    """Workers that draw the same numbers: two workers of one loader iteration whose generator
    ended their first batch in the same state, or a worker whose generator ended it in the same
    state in iterations the loader seeded differently (later epochs, other runs): its draws do
    not follow the loader's seed, so each epoch repeats them. Judged on what was drawn, not on
    the state a generator started from (a library may reseed it per item)."""
    found = [m for result in results for m in _across_workers(result)]
    if found:
        found.append(_across_seeds(results))
    measured = _worst(found, "no loader ran with two workers or more: nothing to compare")
    return Measurement(REFUTED, "; ".join(m.text for m in found)) if measured.refuted else measured


def _across_workers(result: RunResult) -> list[Measurement]:
    found = []
    for paths in result.rng.values():
        workers = set().union(*(entry["states"] for entry in paths.values()))
        if len(workers) < 2:
            continue
        repeats = [r for r in (_repeated(path, entry) for path, entry in sorted(paths.items())) if r]
        if repeats:
            found.append(Measurement(CONFIRMED, f"{result.profile}: " + "; ".join(repeats)))
            continue
        text = (
            f"{result.profile}: {len(workers)} workers drew different numbers from each of "
            f"{len(paths)} random generators ({', '.join(sorted(paths))}), or never drew from it"
        )
        found.append(Measurement(REFUTED, text))
    return found


def _across_seeds(results: list[RunResult]) -> Measurement:
    """A worker's generator that ended its first batch in the same state under different loader
    seeds (epochs, runs); unknown where no worker was seen under two seeds."""
    compared = {key: by_end for key, by_end in _ends(results).items() if len(_seeds(by_end.values())) > 1}
    if not compared:
        return Measurement(
            UNKNOWN,
            "no worker's generators were seen in two loader iterations seeded differently: whether "
            "its draws repeat in every epoch is not known (run two epochs)",
        )
    for (worker, path), by_end in sorted(compared.items()):
        repeated = next((runs for runs in by_end.values() if len(_seeds([runs])) > 1), None)
        if repeated:
            profiles = sorted({profile for profile, _ in repeated})
            where = ", ".join(f"{p}: {sum(p == profile for profile, _ in repeated)}" for p in profiles)
            return Measurement(
                CONFIRMED,
                f"`{path}` ended worker {worker}'s first batch in the same state in "
                f"{len(_seeds([repeated]))} loader iterations seeded differently ({where}): its draws "
                "do not follow the loader's seed, so every epoch (and every run) repeats them",
            )
    iterations = len(_seeds(runs for by_end in compared.values() for runs in by_end.values()))
    return Measurement(
        REFUTED,
        f"each worker drew differently from its generators in each of {iterations} loader iterations "
        "seeded differently (epochs and runs)",
    )


def _ends(results: list[RunResult]) -> dict[tuple[str, str], dict[str, set[tuple[str, str]]]]:
    """{(worker id, generator path): {its state after the first batch: {(profile, loader seed)}}}."""
    ends: dict[tuple[str, str], dict[str, set[tuple[str, str]]]] = {}
    for result in results:
        for seed, paths in result.rng.items():
            for path, entry in paths.items():
                for worker, digest in entry.get("ends", {}).items():
                    ends.setdefault((worker, path), {}).setdefault(digest, set()).add((result.profile, seed))
    return ends


def _seeds(runs) -> set[str]:
    return {seed for group in runs for _, seed in group}


def _alike(digests: dict[str, str]) -> list[list[str]]:
    """The groups of two workers or more with the same hash, from {worker: hash}."""
    by_digest: dict[str, list[str]] = {}
    for worker, digest in sorted(digests.items()):
        by_digest.setdefault(digest, []).append(worker)
    return [workers for workers in by_digest.values() if len(workers) > 1]


def _repeated(path: str, entry: dict) -> str:
    """Workers whose generator `path` ended their first batch in the same state: they drew the
    same numbers (results recorded before the end states: started alike and drew)."""
    if "ends" in entry:
        same, said = _alike(entry["ends"]), "ended its first batch in the same state"
    else:
        same = [workers for workers in _alike(entry["states"]) if set(workers) & set(entry["used"])]
        said = "started from the same state"
    if not same:
        return ""
    groups = " and ".join(", ".join(workers) for workers in same)
    return f"`{path}` {said} in workers {groups}, which drew from it"


def open_files(results: list[RunResult], case=None) -> Measurement:
    """A steady rise of the main process's open descriptors, carried to the open-file limit and
    to the epoch's length."""
    found = []
    for result in results:
        for epoch in result.loader_epochs:
            points = epoch.get("fds") or []
            if len(points) >= FD_MIN_POINTS and epoch.get("fd_limit"):
                found.append(_fd_trend(result.profile, points, epoch["fd_limit"], epoch.get("length")))
    return _worst(found, f"no epoch delivered {FD_MIN_POINTS} batches with a count of open descriptors")


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
        found.append(_memory_trend(result.profile, epochs[0], workers, threshold))
    if sizes and all(m.refuted for m in sizes) and not any(m.confirmed for m in found):
        return sizes[0]  # small lists cannot grow a worker by copy-on-read, whatever its noise
    return _worst(found + sizes, "no forked worker's memory was sampled long enough")


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


LARGE_CONTAINER = 10_000  # items: a Dataset's lists below this size cannot grow a worker much


def _small_containers(result: RunResult) -> Measurement:
    """Refuted where every list, tuple and dict the Dataset holds is small; else no verdict."""
    path, size = max(result.dataset_sizes.items(), key=lambda item: item[1])
    if size == 0:
        return Measurement(REFUTED, f"{result.profile}: the Dataset holds no list, tuple or dict")
    if size < LARGE_CONTAINER:
        return Measurement(
            REFUTED, f"{result.profile}: the largest list the Dataset holds, `{path}`, has {size} items"
        )
    return Measurement(UNKNOWN, f"{result.profile}: `{path}` holds {size} items")


def _steady_growth(worker: dict) -> float:
    """What a worker's growth says of the rest of the epoch: its growth, but no more than twice its
    growth over the second half of the window (copy-on-read goes on as the worker reads; a worker
    that grew at its start and then settled does not)."""
    late = worker.get("late_growth_mb")
    return worker["growth_mb"] if late is None else min(worker["growth_mb"], 2 * late)


def _memory_trend(profile: str, epoch: dict, workers: dict, threshold: float) -> Measurement:
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


def startup_wait(epochs: list[dict]) -> tuple[float, float] | None:
    """(seconds, share): how long the complete epochs of a loader after its first waited for their first batch
    on average, and the share that was of their time up to their last batch; None without such an
    epoch. The workers' shutdown after the last batch is left out: it is not a start-up cost (and
    under spawn with file_system on Linux and macOS it can take 5 s a worker: `shutdown_wait`)."""
    later = [
        e
        for n, e in enumerate(epochs)
        if e["duration_s"] and e["first_batch_s"] is not None and _iterated_before(e, epochs[:n])
    ]
    if not later:
        return None
    waited = sum(e["first_batch_s"] for e in later)
    served = sum(e.get("last_batch_s") or e["duration_s"] for e in later)  # older results lack it
    return waited / len(later), waited / served


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
    figures = (
        f"epochs after the first waited {seconds:.2f} s for their first batch, "
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
    return _worst(found, "no loader of any run completed a second epoch (--full runs to the end)")


def repeated_stream(results: list[RunResult], case=None) -> Measurement:
    """Workers of an IterableDataset loader that yield the same items (by content): each yields
    the whole stream, or a part of another's, instead of its own share. Judged on every item the
    workers yielded; their first batches alone say nothing where each shuffles its copy."""
    found = []
    for result in results:
        found += [_stream(result.profile, s) for s in result.streams.values() if s["workers"] > 1]
        for workers in result.first_batches.values():
            same = _alike(workers) if len(workers) > 1 else []
            if same:
                groups = " and ".join(", ".join(w) for w in same)
                text = f"{result.profile}: workers {groups} of an IterableDataset made the same first batch"
                found.append(Measurement(CONFIRMED, text))
            elif len(workers) > 1 and not result.streams:  # a record made before the items were
                text = f"{result.profile}: {len(workers)} workers of an IterableDataset made distinct batches"
                found.append(Measurement(REFUTED, text))
    return _worst(found, "no IterableDataset loader ran with two workers or more")


def _stream(profile: str, stream: dict) -> Measurement:
    """One loader iteration's items: shared by workers (confirmed), all distinct to the end of
    every worker's share (refuted), or distinct as far as they were seen (unknown)."""
    workers, items, shared = stream["workers"], stream["items"], stream["shared"]
    distinct = stream["distinct"]
    seen = f"{profile}: {workers} workers of an IterableDataset yielded {items} items, {distinct} distinct"
    if shared >= max(STREAM_SHARED_MIN, STREAM_SHARED_SHARE * items / workers):
        return Measurement(CONFIRMED, f"{seen}: {shared} of them came from more than one worker")
    dropped, batch_size = stream.get("dropped", 0), stream.get("batch_size", 0)
    if batch_size and dropped >= batch_size:
        return Measurement(
            CONFIRMED,
            f"{profile}: the {workers} workers of an IterableDataset dropped {dropped} of the "
            f"{items + dropped} items of their shares, each its own last partial batch (drop_last "
            f"applies per worker); one process would drop at most {batch_size - 1}",
        )
    if stream["whole"]:
        return Measurement(REFUTED, f"{seen}, to the end of each worker's share; {shared} from more than one")
    return Measurement(
        UNKNOWN,
        f"{seen}, {shared} from more than one, but their shares were not seen to their end (the run "
        "stopped after its first batches, or the stream is longer than the probe keeps)",
    )


def lost_logs(results: list[RunResult], case=None) -> Measurement:
    """Records that workers logged and that no handler of theirs took, where the main process's
    own setup would have handled them (harness/boot/dlp_logging.py): lost to logging's last
    resort, or dropped for a level the main process never set in them."""
    found = []
    for result in results:
        setup, records = (result.logging or {}).get("setup", {}), (result.logging or {}).get("records", [])
        if not records:
            continue
        lost = [r for r in records if not r["delivered"] and _main_handles(setup, r["logger"], r["level"])]
        logged = sum(r["count"] for r in records)
        if lost:
            count = sum(r["count"] for r in lost)
            where = ", ".join(sorted({_where(r) for r in lost}))
            text = (
                f"{result.profile}: {count} of {logged} record(s) that workers logged ({where}) reached "
                "no handler there, while the main process's logging would have handled them"
            )
            found.append(Measurement(CONFIRMED, text))
        else:
            text = f"{result.profile}: the {logged} record(s) workers logged met the main process's handling"
            found.append(Measurement(REFUTED, text))
    return _worst(found, "no DataLoader worker logged a record")


def _where(record: dict) -> str:
    return f"{_level_name(record['level'])} on `{_main_name(record['logger'])}`"


def _main_name(logger: str) -> str:
    """A spawned worker imports the main script as __mp_main__; the main process knows it as __main__."""
    return "__main__" + logger[len("__mp_main__") :] if logger.startswith("__mp_main__") else logger


def _level_name(level: int) -> str:
    import logging

    return logging.getLevelName(level)


def _main_handles(setup: dict, logger: str, level: int) -> bool:
    """Whether the main process's setup ({logger: [level, lowest handler level, propagate,
    disabled]}, the loggers that shape it) would hand a record at `level` on `logger` to a handler."""
    chain = _ancestors(_main_name(logger))
    if chain[0] in setup and setup[chain[0]][3:4] == [True]:
        return False  # disabled in the main process (dictConfig disables the loggers made before it)
    effective = next((setup[n][0] for n in chain if n in setup and setup[n][0]), 30)  # root: WARNING
    if level < effective:
        return False
    for name in chain:
        entry = setup.get(name)
        if entry is None:
            continue
        handler_level, propagate = entry[1], entry[2]
        if handler_level is not None and level >= handler_level:
            return True
        if not propagate:
            return False
    return False


def _ancestors(logger: str) -> list[str]:
    """`a.b.c` and its parents, nearest first, ending with the root."""
    if logger == "root":
        return ["root"]
    parts = logger.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + ["root"]


# Measured only where lint suspects the pitfall: a cost, not a fault (two passes over a small
# validation set restart its workers too, and that is fine).
_EFFECTS = {
    "open-w": "opened {} for writing, emptying it",
    "open-x": "created {}",
    "mkdir": "made the folder {}",
    "remove": "removed {}",
    "rename": "renamed {}",
    "rmtree": "removed the folder tree {}",
    "truncate": "truncated {}",
    "connect": "connected to {}",
    "download": "requested {}",
}
EFFECTS_SHOWN = 4


def import_side_effects(results: list[RunResult], case=None) -> Measurement:
    """What the script's top level did when a process imported it again (spawn's workers, the
    forkserver): files written or emptied, folders made, connections opened. Under fork nothing
    imports it again, and a top level of imports and definitions does none of it."""
    found = []
    for result in results:
        imported = result.import_effects
        if not imported:
            continue
        again = f"{result.profile}: {imported['processes']} process(es) imported the script again"
        effects = imported["effects"]
        if not effects:
            text = f"{again}; its top level wrote no file, made no folder, opened no connection"
            found.append(Measurement(REFUTED, text))
            continue
        done = [
            _EFFECTS.get(e["what"], e["what"] + " {}").format(f"`{e['target']}`")
            + f" (in {e['processes']} of them)"
            for e in effects[:EFFECTS_SHOWN]
        ]
        more = f" and {len(effects) - EFFECTS_SHOWN} more" if len(effects) > EFFECTS_SHOWN else ""
        found.append(Measurement(CONFIRMED, f"{again}, and its top level " + "; ".join(done) + more))
    return _worst(found, "no process imported the script again (under fork none does, or no worker started)")


ONLY_WHERE_SUSPECTED = {"startup"}

MEASURES: dict[str, Callable[[list[RunResult], object], Measurement]] = {
    "startup": startup,
    "repeated_stream": repeated_stream,
    "randomness": randomness,
    "open_files": open_files,
    "worker_memory": worker_memory,
    "lost_logs": lost_logs,
    "import_side_effects": import_side_effects,
}
