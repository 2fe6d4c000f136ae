"""One measuring process: `python harness/bench/measure.py` reads a job (JSON) on stdin and prints
one JSON line per measurement on stdout, as it goes.

Each job runs in a process of its own, launched as a script the way a training script is (so that
the forkserver sees a main script), and one start method's helpers do not carry over into another's
figures; times are taken inside, so the process's own start is not counted. A job:

    {"workload": {...}, "method": M, "batch_size": B, "epochs": E,
     "configs": [{"num_workers": N, "persistent_workers": P, "prefetch_factor": F}, ...],
     "autotune_max_workers": N or null, "side_by_side_rounds": R or null,
     "startup": {"megabytes": [...], "repeats": R} or null}

In order: what `fixes.autotune.recommend_num_workers` chose and how long it took, when asked (it
runs first, so that it, not the sweep, pays for starting a forkserver); each config's epochs (time
to the first batch, epoch time, samples); the sweep's total time; where the autotune's choice is
not the sweep's best setting and `side_by_side_rounds` is set, both measured again in alternation;
then, when asked, one worker's time to its first batch for Datasets of each size.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from torch.utils.data import DataLoader

if not __package__:  # run as a script, as a training script is: its package found by its path (PEP 366)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = f"{Path(__file__).resolve().parents[1].name}.bench"

try:  # installed: the recipes travel as dataloader_pitfalls.fixes
    from ..fixes.autotune import recommend_num_workers
except ImportError:  # a checkout: fixes/ stands beside harness/
    from fixes.autotune import recommend_num_workers
from . import summary
from .workloads import Payload, build

ONE_WORKER = {"num_workers": 1, "persistent_workers": False, "prefetch_factor": 2}


def emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


def loader_for(dataset, method: str, config: dict, batch_size: int) -> DataLoader:
    workers = config["num_workers"]
    if workers == 0:
        return DataLoader(dataset, batch_size=batch_size)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=workers,
        multiprocessing_context=method,
        persistent_workers=config["persistent_workers"],
        prefetch_factor=config["prefetch_factor"],
    )


def time_epochs(loader: DataLoader, epochs: int) -> list[dict]:
    """Per epoch: seconds from iter() to the first batch and to the end, and samples read."""
    measured = []
    for _ in range(epochs):
        started, first, samples = time.perf_counter(), None, 0
        for batch in loader:
            if first is None:
                first = time.perf_counter() - started
            samples += len(batch)
        elapsed = time.perf_counter() - started
        measured.append({"first_batch_s": round(first, 4), "epoch_s": round(elapsed, 4), "samples": samples})
    return measured


def shut_down(loader: DataLoader) -> None:
    """Ends persistent workers now, so that they do not compete with the next measurement."""
    iterator = getattr(loader, "_iterator", None)
    if iterator is not None and hasattr(iterator, "_shutdown_workers"):
        iterator._shutdown_workers()


def autotune(dataset, method: str, batch_size: int, max_workers: int) -> int:
    """Runs the autotune, emits what it chose, and returns the worker count."""
    choice = recommend_num_workers(
        dataset, batch_size, max_workers=max_workers, multiprocessing_context=method
    )
    emit(
        {
            "autotune": True,
            "num_workers": choice.num_workers,
            "samples_per_s": round(choice.samples_per_s, 1),
            "tried": {str(n): round(rate, 1) for n, rate in choice.tried.items()},
            "seconds": choice.seconds,
        }
    )
    return choice.num_workers


def sweep(dataset, method: str, configs: list[dict], batch_size: int, epochs: int) -> list[dict]:
    """Emits each config's epochs, then the sweep's time; returns the config records."""
    started, records = time.perf_counter(), []
    for config in configs:
        loader = loader_for(dataset, method, config, batch_size)
        restarts = config["num_workers"] and not config["persistent_workers"]
        records.append(
            {"config": config, "epochs": time_epochs(loader, max(1, epochs - 1) if restarts else epochs)}
        )
        emit(records[-1])
        shut_down(loader)
    emit({"sweep_s": round(time.perf_counter() - started, 3)})
    return records


def side_by_side(dataset, method: str, configs: list[dict], batch_size: int, rounds: int) -> None:
    """Measures a few configs again in alternation, one epoch each per round after one warm-up
    epoch each, so that a slow spell of the machine falls on all of them alike; emits their
    samples/s per round."""
    loaders = [loader_for(dataset, method, config, batch_size) for config in configs]
    for loader in loaders:
        time_epochs(loader, 1)  # starts persistent workers; not counted
    rates: list[list[float]] = [[] for _ in configs]
    for _ in range(rounds):
        for rate, loader in zip(rates, loaders, strict=True):
            epoch = time_epochs(loader, 1)[0]
            rate.append(round(epoch["samples"] / epoch["epoch_s"], 1))
    for loader in loaders:
        shut_down(loader)
    emit({"side_by_side": [{"config": c, "samples_per_s": r} for c, r in zip(configs, rates, strict=True)]})


def startup(method: str, megabytes: list[int], repeats: int) -> None:
    for size in megabytes:
        dataset = Payload(size)
        for repeat in range(repeats):
            loader = loader_for(dataset, method, ONE_WORKER, 1)
            started = time.perf_counter()
            iterator = iter(loader)  # starts the worker
            next(iterator)
            first = time.perf_counter() - started
            del iterator  # ends its worker
            emit({"megabytes": size, "repeat": repeat, "first_batch_s": round(first, 4)})


def main() -> None:
    job = json.load(sys.stdin)
    dataset = build(job["workload"])
    chosen = None
    if job.get("autotune_max_workers") is not None:
        chosen = autotune(dataset, job["method"], job["batch_size"], job["autotune_max_workers"])
    records = sweep(dataset, job["method"], job["configs"], job["batch_size"], job["epochs"])
    if chosen is not None and job.get("side_by_side_rounds"):
        best = summary.best_config(records)
        recommended = summary.recommended_config(chosen)
        if recommended != best:
            side_by_side(
                dataset, job["method"], [best, recommended], job["batch_size"], job["side_by_side_rounds"]
            )
    if job.get("startup"):
        startup(job["method"], **job["startup"])


if __name__ == "__main__":
    main()
