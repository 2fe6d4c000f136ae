"""A run confined to a memory cgroup of a given size, as a container's `docker run --memory`, a
Kubernetes pod's memory limit or a Slurm job's `--mem` confines a training script.

The harness makes a cgroup of its own under the one it runs in, sets its limit, and the run's
command becomes a shell that moves itself into the cgroup and execs the script's interpreter (so the
run's pid, session and process tree are unchanged, and every process it starts is in the cgroup).
Past the limit the kernel's OOM killer ends a process of the cgroup, chosen as it chooses anywhere:
the largest. After the run the harness reads how many processes the OOM killer ended and the
cgroup's peak, then removes the cgroup.

Both hierarchies are served: cgroup v2 where its memory controller is enabled (`memory.max`,
`memory.events`, `memory.peak`), else cgroup v1's memory controller (`memory.limit_in_bytes`,
`memory.oom_control`, `memory.max_usage_in_bytes`). Where neither can be written (no root, no
controller, not Linux), a run that asks for a limit is skipped, saying why: never imitated.
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..observation import Observation
from .base import Confined, Confinement, then_exec

CGROUP_ROOT = Path("/sys/fs/cgroup")
REMOVE_WAIT_S = 10.0  # for the last process of a run to leave its cgroup
_MOVE = 'echo $$ > "$DLP_CGROUP_PROCS"'


@dataclass(frozen=True)
class _Hierarchy:
    """Where a hierarchy with a memory controller is mounted, and its files' names."""

    mount: Path
    own: str  # this process's cgroup in it ("/…")
    limit_file: str
    events_file: str
    peak_file: str

    def oom_kills(self, folder: Path) -> int:
        """How many processes the OOM killer ended in the cgroup `folder` (its `oom_kill` line)."""
        for line in (folder / self.events_file).read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
        return 0


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup in each hierarchy, by controller ("" for cgroup v2's unified one), as
    /proc/self/cgroup lists them."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            found.update(dict.fromkeys(controllers.split(","), path))
    return found


def _v2(own: dict[str, str]) -> _Hierarchy | None:
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        with contextlib.suppress(OSError):
            if "" in own and "memory" in (mount / "cgroup.controllers").read_text().split():
                return _Hierarchy(mount, own[""], "memory.max", "memory.events", "memory.peak")
    return None


def _v1(own: dict[str, str]) -> _Hierarchy | None:
    mount = CGROUP_ROOT / "memory"
    if "memory" not in own or not (mount / "memory.limit_in_bytes").exists():
        return None
    return _Hierarchy(
        mount, own["memory"], "memory.limit_in_bytes", "memory.oom_control", "memory.max_usage_in_bytes"
    )


@functools.cache
def hierarchy() -> _Hierarchy | None:
    """The hierarchy the runs' cgroups are made in: cgroup v2 where its memory controller is
    enabled, else v1's memory controller; None where neither is mounted. Read once."""
    own = _own_cgroups()
    return _v2(own) or _v1(own)


@dataclass
class Cgroup(Confined):
    """One run's memory cgroup, made with its limit; `wrap` a command to run inside it."""

    folder: Path
    hierarchy: _Hierarchy

    @classmethod
    def make(cls, size_mb: float) -> Cgroup:
        mounted = hierarchy()
        if mounted is None:
            raise OSError("no cgroup hierarchy with a memory controller is mounted")
        folder = mounted.mount / mounted.own.lstrip("/") / f"dlp-run-{uuid.uuid4().hex[:12]}"
        folder.mkdir()
        try:
            (folder / mounted.limit_file).write_text(str(int(size_mb * 2**20)))
        except OSError:
            folder.rmdir()
            raise
        return cls(folder, mounted)

    def wrap(self, command: list[str]) -> tuple[list[str], dict[str, str]]:
        """The command that runs `command` inside the cgroup, and the variable it reads."""
        return then_exec(_MOVE, command), {"DLP_CGROUP_PROCS": str(self.folder / "cgroup.procs")}

    def oom_kills(self) -> int:
        return self.hierarchy.oom_kills(self.folder)

    def peak_mb(self) -> float | None:
        with contextlib.suppress(OSError, ValueError):
            return int((self.folder / self.hierarchy.peak_file).read_text()) / 2**20
        return None

    def observe(self, observation: Observation) -> None:
        kills, peak = self.oom_kills(), self.peak_mb()
        observation.confined["oom_kills"] = kills
        if peak is not None:
            observation.confined["cgroup_peak_mb"] = round(peak, 1)
        if kills:  # the kernel ended a process: that is how the run failed
            observation.ended_processes += kills
            killed = f"the kernel's OOM killer ended {kills} process{'es' if kills > 1 else ''} of the run"
            observation.ended = "; ".join(filter(None, [observation.ended, f"{killed} (memory limit)"]))

    def close(self) -> str:
        return self.remove()

    def remove(self, wait_s: float = REMOVE_WAIT_S) -> str:
        """Removes the cgroup once its last process has gone (an exiting one may linger a moment);
        "" when it is gone, else what is left and why (never raised: a run's result stands)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.folder.rmdir()
                return ""
            except FileNotFoundError:
                return ""
            except OSError as exc:
                if time.monotonic() > deadline:
                    return f"the memory cgroup {self.folder} (could not remove: {exc.strerror})"
                time.sleep(0.1)


@functools.cache
def _cannot_make() -> str:
    if platform.system() != "Linux":
        return f"a memory cgroup needs Linux (this is {platform.system()})"
    try:
        left = Cgroup.make(64).remove()
    except OSError as exc:
        who = "" if os.geteuid() == 0 else " (making a cgroup needs root here)"
        return f"cannot make a memory cgroup here{who}: {exc}"
    return f"cannot remove a memory cgroup here: {left}" if left else ""


class MemoryLimit(Confinement):
    """A memory cgroup of `RunSettings.confined["memory_cgroup_mb"]` MB."""

    setting = "memory_cgroup_mb"
    option = "--memory-mb"
    help = (
        "run under a memory limit of this size that the kernel enforces, as a container's "
        "--memory or a job's memory request does; Linux, as root"
    )
    planned = "under a memory limit of {size:g} MB"
    exercise = (
        "`--memory-mb {size}` runs every process of each run under a {size} MB memory limit "
        "that the kernel enforces, as a container's `--memory` does (Linux, as root)."
    )
    order = 20
    elsewhere = (
        "{title} has no memory cgroup to limit: {size:g} MB is a Linux container's or job's memory "
        "limit (the linux profiles); Windows and macOS have no such limit, and what they do when "
        "memory runs out is not observed here"
    )
    cannot_here = staticmethod(_cannot_make)
    make = staticmethod(Cgroup.make)


CONFINEMENTS = (MemoryLimit(),)
