"""The fixed vocabulary of outcomes, and how an observed run is classified into one.

Classification reads structured facts first (did the run time out, its exit status, the signal
that ended it) and only then the output, where it looks for the root cause among every Python
traceback that any process of the run printed.
"""

from __future__ import annotations

import enum
import re
import signal
from dataclasses import dataclass


class Outcome(str, enum.Enum):
    OK = "ok"  # the script exited 0
    CRASH = "crash"  # it failed: a non-zero exit or a signal, with a signature
    HANG = "hang"  # it was still running at its timeout; the stacks were recorded
    WRONG = "wrong"  # its own AssertionError fired: a silent bug made visible
    LEAK = "leak"  # measured worker memory grew past the case's threshold
    SLOW = "slow"  # measured start-up waits took more than the case's share of later epochs
    SKIPPED = "skipped"  # a need of the case is missing here (e.g. a GPU); not run
    ERROR = "error"  # the harness itself failed to run it

    def __str__(self) -> str:
        return self.value

    @classmethod
    def named(cls, name: str) -> Outcome:
        """The outcome called `name` in a results file or case.toml; ValueError naming the choices."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown outcome '{name}' (one of {', '.join(OUTCOME_NAMES)})") from None

    @property
    def is_failure(self) -> bool:
        """The run showed a problem: anything but ok, and skipped (which was never run)."""
        return self not in (Outcome.OK, Outcome.SKIPPED)

    @property
    def was_judged(self) -> bool:
        """The script ran and the harness judged it: neither skipped nor a failure of the harness."""
        return self not in (Outcome.SKIPPED, Outcome.ERROR)

    @property
    def script_raised(self) -> bool:
        """The script's own code ended it with an exception: a crash, or its assert (wrong)."""
        return self in (Outcome.CRASH, Outcome.WRONG)

    @property
    def style(self) -> str:
        """How a terminal shows it (rich style)."""
        return _STYLES[self]


OUTCOME_NAMES = tuple(o.value for o in Outcome)
_STYLES = {
    Outcome.OK: "green",
    Outcome.CRASH: "red",
    Outcome.HANG: "magenta",
    Outcome.WRONG: "yellow",
    Outcome.LEAK: "yellow",
    Outcome.SLOW: "yellow",
    Outcome.SKIPPED: "dim",
    Outcome.ERROR: "bold red",
}

_TRACEBACK_START = re.compile(r"^\s*(Original )?Traceback \(most recent call last\):\s*$")
# An exception line as Python prints it: "pkg.Name: message" or a bare "Name".
_TRACEBACK_FRAME = re.compile(r'^\s+File "(?P<file>[^"]+)", line \d+')
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s.*|:)?$")

# Exceptions that report another failure rather than cause one: the parent noticing that a
# worker died, PyTorch re-raising a worker's (or a rank's) exception, a pipe closing under a dead peer.
CONSEQUENCES = (
    re.compile(r"^(_?queue\.)?Empty\b"),
    re.compile(r"DataLoader worker \(pid(?:\(s\))? [\d, ]+\) exited unexpectedly"),
    re.compile(r"Caught \w+ in DataLoader worker process \d+"),
    re.compile(r"ProcessRaisedException\b"),  # torch.multiprocessing.spawn re-raising a rank's exception
    re.compile(r"^EOFError: Ran out of input"),
    re.compile(r"^(BrokenPipeError|ConnectionResetError|ConnectionRefusedError)\b"),
)


@dataclass(frozen=True)
class RaisedException:
    """One exception line found after a traceback in a run's output, and the file it came from."""

    type: str
    line: str
    origin: str = ""  # the file of the traceback's innermost frame

    @property
    def is_consequence(self) -> bool:
        return any(pattern.search(self.line) for pattern in CONSEQUENCES)


def find_exceptions(output: str) -> list[RaisedException]:
    """Every exception that closes a traceback in the output, in the order printed."""
    found: list[RaisedException] = []
    in_traceback, origin = False, ""
    lines = output.replace("\x00", "").splitlines()  # torch's worker fault handler prints a NUL
    for number, line in enumerate(lines):
        if _TRACEBACK_START.match(line):
            in_traceback, origin = True, ""
            continue
        if in_traceback and (frame := _TRACEBACK_FRAME.match(line)):
            origin = frame["file"]
        if not in_traceback or not line or line[0].isspace():
            continue
        match = _EXCEPTION_LINE.match(line)
        if not match:
            # a line that another process printed into the middle of this traceback (the
            # processes of a run share one output): its exception line is still to come
            continue
        in_traceback = False
        text = line.strip()
        if text.endswith(":"):  # the message starts on the next, indented lines
            text = " ".join([text, *_continuation(lines[number + 1 :])])
        found.append(RaisedException(type=match["type"].rsplit(".", 1)[-1], line=text, origin=origin))
    return found


def _continuation(lines: list[str]) -> list[str]:
    """The indented lines of a message's first paragraph."""
    paragraph = []
    for line in lines:
        if not line.strip() or not line[0].isspace():
            break
        paragraph.append(line.strip())
    return paragraph


def root_cause(output: str) -> RaisedException | None:
    """The first exception that is not a consequence of another; else the last one printed."""
    exceptions = find_exceptions(output)
    for exception in exceptions:
        if not exception.is_consequence:
            return exception
    return exceptions[-1] if exceptions else None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def last_line(output: str) -> str:
    for line in reversed(output.splitlines()):
        if line.strip():
            return line.strip()
    return ""


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


_FAULTHANDLER_FRAME = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')
_PY_SPY_MAIN_THREAD = re.compile(r'^Thread \d+ \(\w+\): "MainThread"')


def _current_thread_frames(dump: str) -> list[re.Match]:
    """The frames of the thread that handled the dump signal (the main thread), innermost first."""
    frames, inside = [], False
    for line in dump.splitlines():
        if line.startswith("Current thread"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and (frame := _FAULTHANDLER_FRAME.match(line)):
            frames.append(frame)
    return frames


def _native_innermost(dump: str) -> str:
    lines = dump.splitlines()
    for number, line in enumerate(lines[:-1]):
        if _PY_SPY_MAIN_THREAD.match(line):
            return lines[number + 1].strip()
    return ""


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
        user = [f for f in _current_thread_frames(dump) if not is_library(f["file"])]
        if not user:
            continue
        frame = user[0]
        where = f"{frame['function']} ({frame['file'].rsplit('/', 1)[-1]}:{frame['line']})"
        native_frame = _native_innermost(native.get(pid, ""))
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
