"""How one run is run: its limits and what it watches, built once (by a case or a command) and
passed whole."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

# The one default of each setting that has one (a case, a command line or a test overrides it).
IDLE_S = 4.0  # seconds with no CPU use and no batch that make a hang (with a blocked worker)
# The window over which the run's processes' CPU share shows that it waits rather than works
# (idleness.WAITING_CPU_S_PER_S): a stall or a timeout is a hang only with this (or a worker
# blocked for good) as evidence; where `idle_s` or half the timeout is shorter, that.
QUIET_S = IDLE_S
# A run whose window waits for a later epoch (`later_epoch`) is stopped this long before its
# timeout or the command's deadline: time to take its stacks and end it, so that it is judged.
LATE_STOP_S = 20.0
MEMORY_LIMIT_MB = 4096.0  # a run's processes' memory (memory.resident); a case may declare its own
PROCESS_LIMIT = 64  # more processes than that in one run is a script starting itself over and over


@dataclass(frozen=True)
class RunSettings:
    """The settings of one run; adjust a copy with `dataclasses.replace`.

    `memory_interval_s` turns on the per-worker memory series. With `via_stdin` the code is fed on
    standard input and executed in __main__, which then has no file, as in a notebook. For scripts
    that run for hours: `stop_after_batches` ends the run once its main process received that many
    batches (it works) and its trends were sampled (`sample_batches`, `sample_memory`); `stall_s`
    calls it hung when, once iterating, no batch came for that long, stretched by the machine's
    load (a machine with twice as many runnable processes as CPUs gives twice as long). `idle_s` calls it
    hung sooner: the main process waits for a batch, no process of the run used the CPU for that
    long, and a worker is blocked for good (harness/run/idleness.py); None: never. `confined`: what
    the run is confined to, as a container or job confines a script ({setting: size}, each setting
    declared by a confinement of harness/run/confine/). `cwd`: the folder the script runs in, kept as
    it is (default: a new one of its own, removed after the run), for a test that runs a script
    again where it ran before.
    """

    timeout_s: float
    args: tuple[str, ...] = ()
    via_stdin: bool = False
    memory_interval_s: float | None = None
    memory_limit_mb: float = MEMORY_LIMIT_MB
    stop_after_batches: int | None = None
    # With stop_after_batches, the window watched for trends, counted in what it saw, not in
    # seconds (a busy machine sees as much, later): this many batches after the first, and this
    # many memory samples of each worker; `sample_limit_s` after the first batch ends it with what
    # it has (the measurements then say that their evidence is thin).
    sample_batches: int = 0
    sample_memory: int = 0
    sample_limit_s: float = 0.0
    # A measurement that lint calls for needs a later epoch of a loader (its start-up: lint's
    # DLP011): the window also waits for one to end, past `sample_limit_s`, until LATE_STOP_S
    # before the run's timeout or the command's deadline, so that the run is still judged.
    later_epoch: bool = False
    stall_s: float | None = None
    idle_s: float | None = IDLE_S
    process_limit: int = PROCESS_LIMIT
    confined: Mapping[str, float] = field(default_factory=dict)
    cwd: Path | None = None
    # time.monotonic() by which every run of a command must be over, preparation included (check's
    # --deadline): a run still going then is stopped and not judged (Stop.DEADLINE); None: none.
    deadline: float | None = None
    python_path: tuple[
        str, ...
    ] = ()  # folders first on the run's PYTHONPATH (its launcher's, for the script)

    def limits(self) -> dict:
        """The limits that decide when a run is stopped, as recorded with its result."""
        return {
            "timeout_s": self.timeout_s,
            "idle_s": self.idle_s,
            "stall_s": self.stall_s,
            "memory_limit_mb": self.memory_limit_mb,
            **self.confined,
        }

    def confined_by_default(self, defaults: Mapping[str, float]) -> RunSettings:
        """These settings with the confinements of `defaults` (a profile's: what the platform it
        stands for imposes) that they do not set themselves."""
        return replace(self, confined={**defaults, **self.confined})

    @property
    def quiet_s(self) -> float:
        """The window over which a run's CPU share shows whether its processes wait (QUIET_S, or
        `idle_s` where shorter; no more than half its timeout, so that a short run has one)."""
        return min(QUIET_S, self.idle_s or QUIET_S, self.timeout_s / 2)

    @property
    def watches_progress(self) -> bool:
        return self.stop_after_batches is not None or self.stall_s is not None or self.idle_s is not None
