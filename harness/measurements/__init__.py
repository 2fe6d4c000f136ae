"""Measurements that confirm or refute a pitfall that only shows over time, by chance, or in data
that no assertion checks: the workers' random generators, the main process's open file
descriptors, the workers' memory, the later epochs' wait for workers, the samples each start
method yields.

Each takes the judged runs of one script and the case (for its thresholds) and returns a
Measurement: `confirmed` (the pitfall is there, or predicted within an epoch), `refuted`
(measured, and fine here), or `unknown` (nothing could be measured: the text says why). A case
names its measurement in case.toml ([diagnose] `measure`); `check` uses it where lint suspects
the pitfall and where it does not.
"""

from __future__ import annotations

from collections.abc import Callable

from ..results import RunResult
from .progress import open_files, shutdown_wait, startup, startup_figures, startup_wait, worker_memory
from .randomness import randomness
from .samples import fetched_by_key, main_state
from .verdict import CONFIRMED, REFUTED, UNKNOWN, Measurement
from .workers import import_side_effects, lost_logs, repeated_stream

__all__ = [
    "CONFIRMED",
    "MEASURES",
    "ONLY_WHERE_SUSPECTED",
    "REFUTED",
    "UNKNOWN",
    "Measurement",
    "fetched_by_key",
    "import_side_effects",
    "lost_logs",
    "main_state",
    "open_files",
    "randomness",
    "repeated_stream",
    "shutdown_wait",
    "startup",
    "startup_figures",
    "startup_wait",
    "worker_memory",
]

ONLY_WHERE_SUSPECTED = {"startup"}

MEASURES: dict[str, Callable[[list[RunResult], object], Measurement]] = {
    "startup": startup,
    "repeated_stream": repeated_stream,
    "randomness": randomness,
    "open_files": open_files,
    "worker_memory": worker_memory,
    "lost_logs": lost_logs,
    "import_side_effects": import_side_effects,
    "main_state": main_state,
}
