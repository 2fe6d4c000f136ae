"""What the workers did that the main process would not have: streams repeated, log records
lost, the script's top level run again."""

from __future__ import annotations

from ..results import RunResult
from .randomness import alike
from .verdict import CONFIRMED, REFUTED, UNKNOWN, Measurement, worst

# Items of an IterableDataset that more than one worker yielded: this many, and this share of a
# worker's items, is a stream repeated (fewer can be the data's own repeats).
STREAM_SHARED_MIN = 2
STREAM_SHARED_SHARE = 0.25


def repeated_stream(results: list[RunResult], case=None) -> Measurement:
    """Workers of an IterableDataset loader that yield the same items (by content): each yields
    the whole stream, or a part of another's, instead of its own share. Judged on every item the
    workers yielded; their first batches alone say nothing where each shuffles its copy."""
    found = []
    for result in results:
        found += [_stream(result.profile, s) for s in result.streams.values() if s["workers"] > 1]
        for workers in result.first_batches.values():
            same = alike(workers) if len(workers) > 1 else []
            if same:
                groups = " and ".join(", ".join(w) for w in same)
                text = f"{result.profile}: workers {groups} of an IterableDataset made the same first batch"
                found.append(Measurement(CONFIRMED, text))
            elif len(workers) > 1 and not result.streams:  # a record made before the items were
                text = f"{result.profile}: {len(workers)} workers of an IterableDataset made distinct batches"
                found.append(Measurement(REFUTED, text))
    return worst(found, "no IterableDataset loader ran with two workers or more")


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
    return worst(found, "no DataLoader worker logged a record")


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
    return worst(found, "no process imported the script again (under fork none does, or no worker started)")
