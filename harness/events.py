"""Reading what the boot probes recorded during a run: worker start-up and DataLoader progress."""

from __future__ import annotations

from pathlib import Path


def read(probe_dir: Path) -> dict[int, list[list[str]]]:
    """{pid: [fields of each event line]} from the <pid>.events files in `probe_dir`."""
    events: dict[int, list[list[str]]] = {}
    for path in probe_dir.glob("*.events"):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        events[int(path.stem)] = [line.split() for line in lines if line.strip()]
    return events


def worker_ready(events: dict[int, list[list[str]]], wall_started: float) -> dict[int, float]:
    """{worker pid: seconds from the run's start until it started serving}."""
    ready = {}
    for pid, lines in events.items():
        for fields in lines:
            if fields[0] == "worker_ready" and len(fields) == 2:
                ready[pid] = round(float(fields[1]) - wall_started, 3)
                break
    return ready


def loader_epochs(events: dict[int, list[list[str]]], pid: int, wall_started: float) -> list[dict]:
    """Each DataLoader iteration (epoch) of process `pid`: when it started, how long until its
    first batch, how many batches it delivered, and, once exhausted, how long it took in all
    (`duration_s`, else None)."""
    epochs: dict[str, dict] = {}
    for fields in events.get(pid, []):
        kind, at = fields[0], float(fields[-1]) - wall_started
        if kind == "iter" and len(fields) == 3:
            epochs[fields[1]] = {
                "started_s": round(at, 3),
                "first_batch_s": None,
                "batches": 0,
                "duration_s": None,
            }
        elif kind in ("batch", "end") and len(fields) == 4 and fields[1] in epochs:
            epoch = epochs[fields[1]]
            epoch["batches"] = int(fields[2])
            if kind == "end":
                epoch["duration_s"] = round(at - epoch["started_s"], 3)
            elif epoch["first_batch_s"] is None:
                epoch["first_batch_s"] = round(at - epoch["started_s"], 3)
    return list(epochs.values())


class ProgressWatch:
    """Follows the main process's events file while the run goes on: batches delivered, last progress."""

    def __init__(self, started: float) -> None:
        self.offset = 0
        self.batches = 0
        self.iterating = False
        self.waiting = False  # the main process asked for a batch and has not got it yet
        self.last_progress = started  # time.monotonic() of the last epoch start or batch

    def poll(self, path: Path, now: float) -> None:
        """Reads what `path` (the events file of the main process) gained since the last poll."""
        try:
            with open(path, "rb") as events:
                events.seek(self.offset)
                chunk = events.read()
        except OSError:
            return
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        for line in complete.decode("utf-8", errors="replace").splitlines():
            kind = line.split(" ", 1)[0]
            if kind in ("iter", "batch"):
                self.iterating, self.last_progress = True, now
                self.batches += kind == "batch"
            if kind in ("want", "batch", "end"):
                self.waiting = kind == "want"
