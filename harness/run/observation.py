"""What one finished run showed, before it is classified: the facts the runner gathered."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..tracebacks import signal_name
from . import idleness

QUEUED_SAID = 0.01  # run-queue waits said beside the CPU used once they reach this share of a second


class Stop(enum.Enum):
    """Why a run ended: it exited by itself, or why the harness stopped it."""

    EXITED = "exited"
    TIMEOUT = "timeout"  # still running at its timeout
    STALL = "stall"  # iterating, and no batch for the settings' stall_s
    IDLE = "idle"  # waiting for a batch, no CPU used, a worker blocked for good (harness/run/idleness.py)
    MEMORY = "memory"  # its processes together passed the memory limit
    OUTPUT = "output"  # it wrote more than the runner allows (runner.OUTPUT_LIMIT_BYTES)
    PROCESSES = "processes"  # more processes at once than the process limit
    BATCHES = "batches"  # its loaders delivered the batches asked for: it works
    DEADLINE = "deadline"  # still running when the command's deadline came (settings.deadline): not judged

    @property
    def hung(self) -> bool:
        return self in (Stop.TIMEOUT, Stop.STALL, Stop.IDLE)

    @property
    def takes_stacks(self) -> bool:
        """Stopped while it may be stuck: its stacks are worth reading before the kill."""
        return self.hung or self in (Stop.MEMORY, Stop.OUTPUT)


@dataclass
class Observation:
    """The facts of one finished run, before classification."""

    returncode: int | None = None
    stop: Stop = Stop.EXITED
    stop_note: str = ""  # in words, why the harness stopped it ("" when it exited by itself)
    duration_s: float = 0.0
    output: str = ""
    stacks: dict[str, str] = field(default_factory=dict)
    native_stacks: dict[str, str] = field(default_factory=dict)
    native_stacks_note: str = ""
    leftovers: list[str] = field(default_factory=list)  # processes that outlived the script, then killed
    shm_leftovers: list[str] = field(default_factory=list)  # its /dev/shm entries left, then removed
    not_removed: list[str] = field(default_factory=list)  # what the harness made for it and could not remove
    memory: dict | None = None
    loader_epochs: list[dict] = field(default_factory=list)  # the main process's DataLoader iterations
    first_batches: dict = field(default_factory=dict)  # {loader seed: {worker: hash}} (iterable)
    streams: dict = field(default_factory=dict)  # {loader seed: items yielded, shared} (iterable)
    import_effects: dict = field(default_factory=dict)  # what re-importing the script did
    dataset_sizes: dict = field(default_factory=dict)  # {path: length} of the Datasets' containers
    dataset_bytes: dict = field(default_factory=dict)  # {path: bytes} of Python objects they hold
    logging: dict = field(default_factory=dict)  # the main's logging setup, the workers' records
    rng: dict = field(default_factory=dict)  # the workers' generator fingerprints (events.rng_fingerprints)
    samples: dict = field(default_factory=dict)  # map-style samples' digests by index (probe_records)
    root_pid: int | None = None  # the script's own process
    interpreter_started: bool = True  # its boot module ran (wrote main.pid): the interpreter started
    batches: int = 0  # batches its main process received from its loaders
    # Stopped while it may be stuck (Stop.hung): what shows whether its processes waited or worked.
    cpu_share: float | None = None  # CPU seconds a second its processes used just before the stop
    cpu_queued: float | None = None  # seconds a second they were runnable, waiting for a CPU (Linux)
    blocked: list[int] = field(default_factory=list)  # its workers blocked for good (a lock, no timeout)
    machine_oom_kills: int | None = None  # the machine's OOM kills while it ran (None: unreadable)
    stopped_after_batches: int | None = None  # ended by the harness once it had shown progress
    # What its confinements saw (harness/run/confine/), by name, recorded with its result
    # ({"oom_kills": 0, "cgroup_peak_mb": 120.5}); the processes one ended, and how, in words.
    confined: dict = field(default_factory=dict)
    ended_processes: int = 0
    ended: str = ""  # "the kernel's OOM killer ended 1 process of the run (memory limit)"
    boot_failure: str = ""  # the boot module could not impose the profile: why (the run is an error)

    @property
    def timed_out(self) -> bool:
        return self.stop.hung

    def waited(self) -> bool:
        """Stopped as hung with evidence that it waits: its processes used, and waited in the run
        queue for, almost no CPU just before the stop (idleness.waits), or a worker was blocked
        for good; no evidence gathered, no hang."""
        if self.stop is Stop.IDLE or self.blocked:
            return True
        return idleness.waits(self.cpu_share, self.cpu_queued)

    def cpu_words(self) -> str:
        """The CPU its processes used just before the stop, and what they waited for in the run
        queue where that was more than a trace, in words."""
        used = "not read" if self.cpu_share is None else f"{self.cpu_share:.0%} of a CPU used"
        if (self.cpu_queued or 0.0) >= QUEUED_SAID:
            used += f", {self.cpu_queued:.0%} more runnable, waiting for a CPU"
        return used

    @property
    def signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            return signal_name(-self.returncode)
        return None
