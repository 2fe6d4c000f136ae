"""What a bench run measures: the default plan (under 10 minutes on 2 CPUs) and the quick one."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from ..cases import START_METHODS

WORKLOADS = ("cpu", "io")


def cpu_count() -> int:
    """The CPUs this process may use (its affinity), as DataLoader's own warning counts them."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Plan:
    name: str = "default"  # the goals are judged on the default plan only: a smaller sweep is no yardstick
    workloads: tuple[str, ...] = WORKLOADS
    methods: tuple[str, ...] = tuple(START_METHODS)
    worker_counts: tuple[int, ...] = field(default_factory=lambda: tuple(range(2 * cpu_count() + 1)))
    persistent: tuple[bool, ...] = (False, True)
    prefetch: tuple[int, ...] = (2, 4)
    epochs: int = 3  # non-persistent loaders run one fewer: each of their epochs starts workers anyway
    batch_size: int = 8
    samples: int = 192  # per epoch: 24 batches, so filling the pipeline is a small part of an epoch
    io_latency_ms: float = 4.0
    startup_megabytes: tuple[int, ...] = (0, 64, 256)
    startup_repeats: int = 2
    # a crash and a hang (stacks, native stacks, kill): two cases keep the default bench short
    # (docs/bench.md gives its time); () = the full reproduce + verify matrix, many times longer
    overhead_cases: tuple[str, ...] = ("01", "04")
    overhead_methods: tuple[str, ...] = tuple(START_METHODS)
    overhead_repeat: int = 1  # pairs of passes, in alternating order
    autotune: bool = True
    # where the autotune's choice is not the sweep's best: both measured again, alternating, this
    # many epochs each, and judged by that (the machine's slow spells skew a sweep's settings)
    side_by_side_rounds: int = 3
    overhead: bool = True

    @property
    def max_workers(self) -> int:
        return max(self.worker_counts)

    def configs(self) -> list[dict]:
        """Every setting the sweep measures; num_workers=0 once (the other options need workers)."""
        configs = []
        for workers in self.worker_counts:
            if workers == 0:
                configs.append({"num_workers": 0, "persistent_workers": False, "prefetch_factor": None})
                continue
            for persistent in self.persistent:
                for prefetch in self.prefetch:
                    configs.append(
                        {
                            "num_workers": workers,
                            "persistent_workers": persistent,
                            "prefetch_factor": prefetch,
                        }
                    )
        return configs

    def workload(self, kind: str, io_folder: str) -> dict:
        if kind == "cpu":
            return {"kind": "cpu", "samples": self.samples}
        if kind == "io":
            return {"kind": "io", "folder": io_folder, "latency_ms": self.io_latency_ms}
        raise ValueError(f"unknown workload {kind!r}; choose from {', '.join(WORKLOADS)}")


DEFAULT = Plan()
QUICK = replace(
    DEFAULT,
    name="quick",
    worker_counts=(0, 2),
    prefetch=(2,),
    epochs=2,
    samples=64,
    batch_size=8,
    startup_megabytes=(0, 64),
    startup_repeats=1,
    side_by_side_rounds=2,
    overhead_cases=("01",),
    overhead_methods=("fork",),
)


def heuristic(workload: str, method: str) -> int:
    """The rule tutorials publish: 2 on Windows (spawn here), min(CPU count, 8) on Linux with an
    SSD, at most 4 where I/O is slow (the io workload)."""
    if method == "spawn":
        return 2
    workers = min(cpu_count(), 8)
    return min(workers, 4) if workload == "io" else workers
