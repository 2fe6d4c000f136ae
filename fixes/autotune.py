"""Choose `num_workers` by measuring your own DataLoader, not by a rule of thumb.

`recommend_num_workers(dataset, batch_size=...)` times a short stretch of loading at a few worker
counts (a search that does not try them all: it starts at the CPU count and moves toward the
faster side), and returns the count to use with the throughput it measured. Loading only is
timed, not your training step: if the GPU waits on the loader, this is the figure to raise.

    # --8<-- [start:usage]
    from fixes.autotune import recommend_num_workers

    choice = recommend_num_workers(train_set, batch_size=64)
    print(choice)  # e.g. "num_workers=6: 2,710 samples/s (tried 4: 2,520, 5: 2,600, 6: 2,710, 7: 2,690)"
    loader = DataLoader(train_set, batch_size=64, shuffle=True, **choice.loader_kwargs())
    # --8<-- [end:usage]

Run it in the same script, under the same start method, as your training: under spawn (Windows,
macOS) every worker costs its start-up, which the search includes.
"""

from __future__ import annotations

import itertools
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from torch.utils.data import DataLoader, Dataset, IterableDataset

TOLERANCE = 0.05  # a count within this share of the best is as good; the smaller count wins


@dataclass
class Recommendation:
    """The worker count to use, its measured throughput, and what the search tried."""

    num_workers: int
    samples_per_s: float
    tried: dict[int, float] = field(default_factory=dict)  # num_workers -> samples/s measured
    seconds: float = 0.0  # how long the search took

    def loader_kwargs(self) -> dict:
        """Arguments for DataLoader: the count, and persistent workers so each epoch reuses them.

        Persistent workers keep the Dataset they started with: set per-epoch state (a curriculum,
        `set_epoch`) through the sampler, not on the Dataset (cases/15_persistent_workers_stale_dataset).
        """
        if self.num_workers == 0:
            return {"num_workers": 0}
        return {"num_workers": self.num_workers, "persistent_workers": True}

    def __str__(self) -> str:
        tried = ", ".join(f"{n}: {rate:,.0f}" for n, rate in sorted(self.tried.items()))
        return f"num_workers={self.num_workers}: {self.samples_per_s:,.0f} samples/s (tried {tried})"


MULTIPROCESS_ONLY = ("prefetch_factor", "persistent_workers", "multiprocessing_context")


def loading_rate(dataset: Dataset, num_workers: int, batch_size: int, batches: int, **loader_kwargs) -> float:
    """Samples per second over `batches` batches, once every worker has delivered (start-up and
    the batches they prefetched meanwhile are left out of the window). A map-style dataset is
    read in order from its start, again from the start if it is shorter than the trial;
    `shuffle` and samplers in `loader_kwargs` are ignored."""
    kwargs = {k: v for k, v in loader_kwargs.items() if k not in ("shuffle", "sampler", "batch_sampler")}
    if num_workers == 0:
        kwargs = {k: v for k, v in kwargs.items() if k not in MULTIPROCESS_ONLY}
    warm_up = num_workers * (kwargs.get("prefetch_factor") or 2) + 1 if num_workers else 1
    if not isinstance(dataset, IterableDataset):
        kwargs["sampler"] = [index % len(dataset) for index in range((warm_up + batches) * batch_size)]
    with warnings.catch_warnings():  # trying more workers than CPUs is the point: no warning for it
        warnings.filterwarnings("ignore", message="This DataLoader will create")
        iterator = iter(DataLoader(dataset, batch_size=batch_size, num_workers=num_workers, **kwargs))
    try:
        for _ in range(warm_up):
            next(iterator)
        started, samples = time.perf_counter(), 0
        for batch in itertools.islice(iterator, batches):
            samples += _batch_len(batch)
        elapsed = time.perf_counter() - started
    finally:
        shutdown = getattr(iterator, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
    return samples / elapsed if elapsed > 0 and samples else 0.0


def _batch_len(batch) -> int:
    while isinstance(batch, (list, tuple, dict)):
        batch = next(iter(batch.values())) if isinstance(batch, dict) else batch[0]
    return len(batch)


def search(measure: Callable[[int], float], start: int, most: int, tolerance: float = TOLERANCE) -> int:
    """The count whose `measure` is best, found by climbing from `start` toward the faster side.

    Steps up from `start` while the throughput rises by more than `tolerance`, doubling the step,
    then looks between the points it jumped over; where going up does not pay, it goes down the
    same way. Fewer workers win when within `tolerance` of the best seen (fewer processes, less
    memory). In-process loading (0) is tried whenever the best count is small: without workers
    there is no transfer between processes, which wins for cheap samples.
    """
    rates: dict[int, float] = {}

    def rate(n: int) -> float:
        if n not in rates:
            rates[n] = measure(n)
        return rates[n]

    def better(a: int, b: int) -> bool:
        """More workers must beat b clearly; fewer need only come within tolerance of the best."""
        if a > b:
            return rate(a) > rate(b) * (1 + tolerance)
        return rate(a) * (1 + tolerance) >= max(rate(b), *rates.values())

    origin = best = min(max(start, 0), most)
    for direction in (1, -1):
        step = 1
        while 0 <= best + direction * step <= most and better(best + direction * step, best):
            best += direction * step
            step *= 2
        while step > 1:  # the best lies within the last jump or the one that failed: halve it
            step //= 2
            for candidate in (best - step, best + step):
                if 0 <= candidate <= most and candidate != best and better(candidate, best):
                    best = candidate
                    break
        if best != origin:
            break  # it went up: going down was not tried, nor needed
    if best <= 2 and best != 0 and better(0, best):
        best = 0
    return best


def recommend_num_workers(
    dataset: Dataset,
    batch_size: int = 1,
    max_workers: int | None = None,
    batches: int = 32,
    tolerance: float = TOLERANCE,
    **loader_kwargs,
) -> Recommendation:
    """Measures the loader at a few `num_workers` values (0 to `max_workers`, by default twice the
    CPU count) and returns the smallest count within `tolerance` of the best it found.

    `loader_kwargs` go to each DataLoader as given (collate_fn, pin_memory, prefetch_factor,
    multiprocessing_context...); each trial reads the first `batches` batches after warm-up.
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    most = max_workers if max_workers is not None else 2 * cpus
    started = time.perf_counter()
    tried: dict[int, float] = {}

    def measure(n: int) -> float:
        tried[n] = loading_rate(dataset, n, batch_size, batches, **loader_kwargs)
        return tried[n]

    best = search(measure, min(cpus, most), most, tolerance)
    return Recommendation(best, tried[best], tried, round(time.perf_counter() - started, 2))
