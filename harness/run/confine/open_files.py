"""A run whose every process may hold at most a given number of open files: the soft limit of
`RLIMIT_NOFILE`, 256 on macOS by default (`launchctl limit maxfiles`), where Linux distributions
set 1,024 or more.

A shell lowers its own soft limit (`ulimit -S -n`) and execs the script's interpreter, so the run's
pid, session and process tree are unchanged and every process the script starts inherits the
limit, as children do on macOS. The hard limit stays as it is: a script may raise its soft limit up
to it (`resource.setrlimit`), as it may on macOS. Past the limit, `open()`, `os.pipe()` and
`socket()` fail with EMFILE ("Too many open files").
"""

from __future__ import annotations

import functools
import platform
import shutil

from .base import Confined, Confinement, then_exec

try:
    import resource
except ImportError:  # Windows: no such limit
    resource = None

_LOWER = 'ulimit -S -n "$DLP_OPEN_FILES"'


def hard_limit() -> int | None:
    """This process's hard limit of open files (what a soft limit may be raised to); None where
    there is none or it cannot be read."""
    if resource is None:
        return None
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return None if hard == resource.RLIM_INFINITY else hard


@functools.cache
def _cannot_lower() -> str:
    if resource is None or shutil.which("sh") is None:
        return (
            "a limit of open files a process needs a POSIX shell and RLIMIT_NOFILE "
            f"(this is {platform.system()})"
        )
    return ""


class _Limited(Confined):
    def __init__(self, size: float) -> None:
        self.count = int(size)

    def wrap(self, command: list[str]) -> tuple[list[str], dict[str, str]]:
        return then_exec(_LOWER, command), {"DLP_OPEN_FILES": str(self.count)}


class OpenFiles(Confinement):
    """At most `RunSettings.confined["open_files"]` open files a process (the soft limit)."""

    setting = "open_files"
    option = "--open-files"
    metavar = "N"
    whole = True
    help = (
        "run with at most this many open files a process (the soft RLIMIT_NOFILE), as macOS "
        "gives 256 by default (the macos profile's own); Linux and macOS"
    )
    planned = "with at most {size:g} open files a process"
    exercise = (
        "`--open-files {size}` lets each process of the runs hold at most {size} open files, as "
        "macOS does by default (Linux and macOS)."
    )
    order = 5  # innermost: the limit is the script's, not the shells' that confine it
    systems = ("Linux", "Darwin")
    elsewhere = (
        "{title} has no soft limit of open files a process: {size:g} is one of Linux's or "
        "macOS's (RLIMIT_NOFILE)"
    )
    cannot_here = staticmethod(_cannot_lower)
    make = _Limited

    def unavailable(self, settings, system: str, title: str) -> str:
        said = super().unavailable(settings, system, title)
        size, hard = self.size(settings), hard_limit()
        if said or size is None or hard is None or size <= hard:
            return said
        return f"cannot allow {int(size)} open files a process here: this machine's hard limit is {hard}"


CONFINEMENTS = (OpenFiles(),)
