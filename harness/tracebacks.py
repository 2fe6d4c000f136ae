"""Reading what a run printed: the exceptions that close its tracebacks (the root cause among
every process's), and the faulthandler and py-spy stack dumps of its processes."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

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


_FAULTHANDLER_FRAME = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')
_PY_SPY_MAIN_THREAD = re.compile(r'^Thread \d+ \(\w+\): "MainThread"')


def current_thread_frames(dump: str) -> list[re.Match]:
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


def native_innermost(dump: str) -> str:
    frames = native_main_thread(dump)
    return frames[0] if frames else ""


def native_main_thread(dump: str) -> list[str]:
    """The frames of the main thread in a py-spy --native dump, innermost first."""
    frames, inside = [], False
    for line in dump.splitlines():
        if _PY_SPY_MAIN_THREAD.match(line):
            inside = True
        elif inside and (not line.strip() or line.startswith("Thread ")):
            break
        elif inside:
            frames.append(line.strip())
    return frames


# A native frame as py-spy names it: "symbol (library)" or "0x7f… (library)"; a Python frame names
# a source file and line instead: "function (file.py:12)".
_NATIVE_FRAME = re.compile(r"^\S.*? \((?P<library>[^():]+)\)$")


def native_wait(frames: list[str]) -> list[str]:
    """The libraries of the native frames below the innermost Python frame, innermost first, each
    once where it repeats: where a native wait was entered from ("libc.so.6", "libpython3.11.so.1.0"
    for a lock the interpreter takes; "cv2.abi3.so" or "libgomp.so.1" for a library's own)."""
    libraries: list[str] = []
    for frame in frames:
        found = _NATIVE_FRAME.match(frame)
        if not found:
            break
        if not libraries or libraries[-1] != found["library"]:
            libraries.append(found["library"])
    return libraries
