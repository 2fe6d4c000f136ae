"""How `check` recognises a case in anyone's run ([diagnose] in case.toml): the mechanism in one
sentence, and the run-time patterns that show it, matched on what every process of the run
raised (the parsed exceptions of the parent and of each worker), not on one script's message."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .outcomes import Outcome
from .results import RunResult
from .tracebacks import find_exceptions, native_main_thread, native_wait

# What torch prints, without a traceback, from a worker's signal handler ("ERROR: Unexpected bus
# error encountered in worker. This might be caused by insufficient shared memory (shm).").
_FATAL_LINE = re.compile(r"^\s*(ERROR|Fatal Python error|RuntimeError): .+$", re.M)

# The object a pickling failure names, whatever the library: `cannot pickle 'X' object`,
# `cannot pickle 'X' instances` (3.14), `X objects cannot be pickled` (h5py), `cannot serialize 'X'`,
# `Can't pickle X: …`, `Pickling an X object is disallowed`.
_HELD = (
    re.compile(r"cannot (?:pickle|serialize) '(?P<held>[\w.<>]+)'"),
    re.compile(r"(?P<held>[\w.]+) objects? (?:cannot|can't|can not) be (?:pickled|serialized)"),
    re.compile(r"Can't (?:pickle|get) (?:local object )?'?(?P<held><?[\w.<> ]+?>?)'?(?::| at |$)"),
    re.compile(r"Pickling an? (?P<held>[\w.]+) object is disallowed"),
)


def held_object(text: str) -> str:
    """The type or object that a pickling failure in `text` names; "" where none is named."""
    for pattern in _HELD:
        if match := pattern.search(text):
            return match["held"].strip()
    return ""


@dataclass(frozen=True)
class Pattern:
    """One way a run shows the mechanism: `outcome` under the profiles or start methods `methods`,
    with `signature` in what a process raised (or in the output), `stacks` in its hang stacks.
    `confirms_lint`: the pattern only confirms a finding of the case's lint rules; alone it names
    nothing (a wrong result, or a corrupted read, is this case only where the code shows its cause).
    `any_run`: one run that shows it is enough, and no run vetoes it (a message only this mechanism
    gives, wherever it shows)."""

    outcome: Outcome
    methods: tuple[str, ...]
    # `stacks` is searched in the workers' stacks (`worker_stacks`): the main process only waits for
    # them, and its other threads (a queue's feeder, OpenMP's idle pool) show no mechanism.
    signature: str | None = None
    stacks: str | None = None
    confirms_lint: bool = False
    any_run: bool = False


@dataclass(frozen=True)
class Recognition:
    """A case's recognition. At run time: every observed profile in a pattern's `methods` shows it,
    and no observed profile outside them shows that same pattern (another failure there, with
    another cause, does not count against it). Statically: any finding of the `lint` rules. Over
    time or by chance: `measure`, a measurement of harness/measurements.py that confirms or refutes
    it. The first pattern is the case's own; the others are the same mechanism met another way."""

    mechanism: str
    fix: str
    patterns: tuple[Pattern, ...] = ()
    lint: tuple[str, ...] = ()
    measure: str | None = None

    @property
    def primary(self) -> Pattern | None:
        return self.patterns[0] if self.patterns else None

    @property
    def outcome(self) -> Outcome | None:
        return self.primary.outcome if self.primary else None

    @property
    def methods(self) -> tuple[str, ...]:
        return self.primary.methods if self.primary else ()

    @property
    def specific(self) -> bool:
        """A pattern more specific than an outcome alone (a hang anywhere under fork)."""
        return any(p.signature or p.stacks for p in self.patterns)


def raised(result: RunResult) -> list[str]:
    """What the run's processes raised: its signature, each exception that closes a traceback in
    its output (the parent's and every worker's, with their messages), and the fatal lines torch
    prints from a worker's signal handler."""
    return [result.signature, *_raised_in(result.output_tail)]


@functools.lru_cache(maxsize=64)
def _raised_in(output: str) -> tuple[str, ...]:
    """The exception and fatal lines of one output, parsed once for all the cases matched on it."""
    return (
        *(exception.line for exception in find_exceptions(output)),
        *(match.group(0).strip() for match in _FATAL_LINE.finditer(output)),
    )


def shows(result: RunResult, pattern: Pattern) -> bool:
    """Whether the run shows the pattern: its outcome, its signature in what a process raised (or,
    for what no traceback carries, in the output), its stacks regex in the hang stacks."""
    if result.outcome != pattern.outcome:
        return False
    if pattern.signature and not (
        any(re.search(pattern.signature, line) for line in raised(result))
        or re.search(pattern.signature, result.output_tail)
    ):
        return False
    return not pattern.stacks or bool(re.search(pattern.stacks, worker_stacks(result), re.M))


_PARENT = re.compile(r"^# pid (?P<pid>\d+), parent (?P<parent>\d+)", re.M)


def worker_stacks(result: RunResult) -> str:
    """What the run's workers were doing when it was stopped: each worker's Python stacks, its
    main thread's native frames, and a line naming the libraries its native wait goes through
    (`native wait: libc.so.6 ← libpython3.11.so.1.0`). A worker is a process whose parent's stacks
    were taken too (faulthandler's header names it); the main process is left out."""
    parents = {m["pid"]: m["parent"] for dump in result.stacks.values() if (m := _PARENT.search(dump))}
    workers = [pid for pid, parent in parents.items() if parent in parents]
    text = []
    for pid in workers:
        frames = native_main_thread(result.native_stacks.get(pid, ""))
        text += [result.stacks[pid], *frames]
        if wait := native_wait(frames):
            text.append("native wait: " + " ← ".join(wait))
    return "\n".join(text)


def matching_line(result: RunResult, pattern: Pattern) -> str:
    """The exception (or output line) that matched the pattern's signature, for the evidence."""
    if pattern.signature:
        for line in raised(result):
            if re.search(pattern.signature, line):
                return line
    return result.signature
