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
    first batch, how many batches it delivered (counted 1, 2, 3, then every 100th, and at the
    end), and, once exhausted, how long it took in all (`duration_s`, else None)."""
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
