"""How a run is classified: its outcome and signature from what the runner observed
(classification, hang signatures with their evidence, the leak and slow-start thresholds), the
machine's paths scrubbed from what is recorded, and the RunResult built from the Observation.
Whether the run shows anything about the script at all is harness/report.py's to decide."""

from __future__ import annotations

import dataclasses
import functools
import sys
import sysconfig
from dataclasses import dataclass

from .cases import CASES_DIR, Case
from .measurements import startup_figures, startup_wait
from .outcomes import Outcome
from .results import RunResult
from .run import launch
from .run.memory import largest_growth
from .run.observation import Observation, Stop
from .tracebacks import current_thread_frames, last_line, native_innermost, root_cause, signal_name

OUTPUT_TAIL_LINES = 40
OUTPUT_TAIL_CHARS = 6000
# The facts a RunResult takes from its Observation as they are: the fields both declare.
SHARED_FIELDS = frozenset(f.name for f in dataclasses.fields(RunResult)) & frozenset(
    f.name for f in dataclasses.fields(Observation)
)


@dataclass(frozen=True)
class Paths:
    """Where Python and installed packages live, as the runs name them (`libraries`: a frame there
    is not the script's), and the machine-specific prefixes recorded under neutral names."""

    aliases: tuple[tuple[str, str], ...]  # (prefix, "<stdlib>"…), longest first
    libraries: tuple[str, ...]

    @classmethod
    def of(cls, launchers: list[launch.Launcher]) -> Paths:
        """This interpreter's paths and those of each launcher's runs."""
        aliases = {
            sysconfig.get_path("purelib"): "<site-packages>",
            sysconfig.get_path("stdlib"): "<stdlib>",
            str(CASES_DIR.parent): "<project>",
        }
        libraries = {sysconfig.get_path(n) for n in ("stdlib", "platstdlib", "purelib", "platlib")}
        libraries |= {sys.prefix, str(launch.BOOT_DIR)}
        for launcher in launchers:  # the same, as each way of running names them
            aliases.update(launcher.path_aliases(CASES_DIR.parent))
            libraries |= launcher.library_paths()
        ordered = tuple(sorted(aliases.items(), key=lambda item: -len(item[0])))
        return cls(ordered, tuple(sorted(libraries)))

    def is_library(self, path: str) -> bool:
        """Whether a frame's file belongs to Python or an installed package rather than the script."""
        return path.startswith("<") or path.startswith(self.libraries)

    def scrub(self, text: str) -> str:
        """The text with the install paths replaced, so results compare across machines."""
        for prefix, alias in self.aliases:
            text = text.replace(prefix, alias)
        return text

    def tail(self, output: str) -> str:
        lines = output.splitlines()[-OUTPUT_TAIL_LINES:]
        return self.scrub("\n".join(lines)[-OUTPUT_TAIL_CHARS:])


HERE = Paths.of(launch.every())  # this machine's interpreter, and Windows' under Wine


@functools.cache
def paths_for(launcher: launch.Launcher | None) -> Paths:
    """The paths that the runs of `launcher` name (another interpreter's: a chroot's) besides HERE's."""
    return HERE if launcher is None else Paths.of([*launch.every(), launcher])


is_library, scrub, tail = HERE.is_library, HERE.scrub, HERE.tail


def classify(
    output: str, returncode: int | None, timed_out: bool, is_library=lambda path: False
) -> tuple[Outcome, str]:
    """(outcome, signature) of a finished run. `returncode` is negative for a signal (POSIX).

    An AssertionError is a `wrong` result when the script's own code raised it; raised inside a
    library (`is_library(path)`: torch asserting it has no CUDA, say) it is a crash.
    """
    if timed_out:
        return Outcome.HANG, "no exit before the timeout"
    if returncode == 0:
        return Outcome.OK, ""
    cause = root_cause(output)
    if cause is not None and cause.type == "AssertionError" and not is_library(cause.origin):
        return Outcome.WRONG, cause.line
    if cause is not None:
        return Outcome.CRASH, cause.line
    if returncode is not None and returncode < 0:
        return Outcome.CRASH, f"killed by {signal_name(-returncode)}"
    return Outcome.CRASH, last_line(output) or f"exit status {returncode}"


def hang_signature(
    stacks: dict[str, str], native: dict[str, str], is_library, root_pid: int | None = None
) -> str:
    """Where the stuck processes wait: their innermost frame in the script's own code, and
    (with native stacks) the innermost native frame, e.g. a glibc function.

    `stacks` maps a pid to its faulthandler dump (header line first, as the harness records it);
    `is_library(path)` tells the standard library, installed packages and the harness from the
    script's code. The main process (`root_pid`), which only waits for its workers, is named only
    when no other process is stuck in the script's code.
    """
    spots: dict[str, list[str]] = {}
    for pid, dump in stacks.items():
        user = [f for f in current_thread_frames(dump) if not is_library(f["file"])]
        if not user:
            continue
        frame = user[0]
        where = f"{frame['function']} ({frame['file'].rsplit('/', 1)[-1]}:{frame['line']})"
        native_frame = native_innermost(native.get(pid, ""))
        if native_frame:
            where += f" ← native {native_frame}"
        spots.setdefault(where, []).append(pid)
    others = {where: pids for where, pids in spots.items() if str(root_pid) not in pids}
    if others and len(others) < len(spots):
        spots = others  # the main process sits in its loop waiting; the workers tell the story
    if not spots:
        return "no exit before the timeout"
    ranked = sorted(spots.items(), key=lambda item: (-len(item[1]), item[0]))
    return "hang: " + "; ".join(f"{len(pids)} process(es) in {where}" for where, pids in ranked)


def result(observed: Observation, base: dict, judging: Case | None = None, paths: Paths = HERE) -> RunResult:
    """The RunResult of a finished run: `base` (its labels, profile, emulation), its outcome and
    signature, and every fact it shares with the Observation, copied by name and scrubbed of the
    machine's paths (`paths`: its way of running's, whose interpreter's paths count too; a new
    probe field needs no edit here)."""
    outcome, signature = judge(observed, judging, paths)
    facts = {name: _scrubbed(getattr(observed, name), paths.scrub) for name in SHARED_FIELDS}
    return RunResult(
        **base,
        **facts,
        outcome=outcome,
        signature=paths.scrub(signature),
        signal=observed.signal,
        output_tail=paths.tail(observed.output),
    )


def _scrubbed(value, scrub):
    """Strings, and the strings in lists and dicts of strings, with the machine's paths replaced."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [scrub(item) for item in value]
    if isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
        return {key: scrub(item) for key, item in value.items()}
    return value


def judge(observed: Observation, judging: Case | None, paths: Paths = HERE) -> tuple[Outcome, str]:
    """(outcome, signature) of a finished run: why the harness stopped it, else how it ended."""
    stop = observed.stop
    if stop in (Stop.PROCESSES, Stop.OUTPUT):
        return Outcome.CRASH, observed.stop_note
    if stop is Stop.MEMORY:
        return Outcome.LEAK, observed.stop_note
    if stop is Stop.BATCHES:
        return Outcome.OK, f"stopped by the harness after {observed.stopped_after_batches} batches"
    library = paths.is_library
    outcome, signature = classify(observed.output, observed.returncode, observed.timed_out, library)
    if observed.ended:  # a limit it was confined to ended a process: how it failed, whatever followed
        return Outcome.CRASH, f"{observed.ended}: {signature or 'the script went on'}"
    if outcome is Outcome.HANG:
        signature = hang_signature(observed.stacks, observed.native_stacks, library, observed.root_pid)
        if evidence := waiting_evidence(observed):
            signature = f"{signature}; {evidence}"
    if outcome is Outcome.OK and judging is not None and judging.leak_threshold_mb is not None:
        return judge_memory(observed.memory or {}, judging.leak_threshold_mb)
    if outcome is Outcome.OK and judging is not None and judging.slow_startup_share is not None:
        return judge_startup(observed.loader_epochs, judging.slow_startup_share)
    return outcome, signature


def waiting_evidence(observed: Observation) -> str:
    """What showed that a run stopped as hung was waiting, in words: the idleness stop's own note,
    else the stall's with the seconds its processes used no CPU, else those seconds alone."""
    if observed.stop is Stop.IDLE:
        return observed.stop_note
    seen = []
    if observed.cpu_share is not None:
        seen.append(f"{observed.cpu_words()} before the stop")
    if observed.blocked:
        seen.append(f"{len(observed.blocked)} worker(s) blocked on a lock with no timeout")
    said = ", ".join(seen)
    if observed.stop is Stop.STALL:
        return f"{observed.stop_note}, {said}" if said else observed.stop_note
    return said


def judge_memory(memory: dict, threshold_mb: float) -> tuple[Outcome, str]:
    """`leak` when a worker grew past the threshold from its baseline; else `ok`, with the figures.
    (The threshold is set for USS; a run whose memory was read only as RSS is not judged:
    harness/skips.py's `memory_unreadable`.)"""
    growth = largest_growth(memory)
    if growth is None:
        return Outcome.ERROR, "no worker memory was sampled"
    grew, baseline, _ = growth
    figures = f"worker grew {grew:.0f} MB over its {baseline:.0f} MB baseline (threshold {threshold_mb:g} MB)"
    return (Outcome.LEAK if grew > threshold_mb else Outcome.OK), figures


def judge_startup(epochs: list[dict], threshold: float) -> tuple[Outcome, str]:
    """`slow` when the epochs after the first spent more than `threshold` of their time waiting
    for their first batch (re-starting workers, re-sending the Dataset); else `ok`, with figures."""
    waited = startup_wait(epochs)
    if waited is None:
        return Outcome.ERROR, f"no complete epoch after the first was recorded ({len(epochs)} epochs)"
    share = waited[1]
    figures = f"{startup_figures(epochs, waited)} (threshold {threshold:.0%})"
    return (Outcome.SLOW if share > threshold else Outcome.OK), figures
