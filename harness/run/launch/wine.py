"""The Wine launcher: the official Windows CPython and torch's Windows wheels run the script, under
Wine, on this Linux machine (the environment and its tools: wine_env.py)."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .. import needs, processes
from ..observation import Observation, Stop
from ..settings import MEMORY_LIMIT_MB, RunSettings
from . import wine_env, wine_packages
from .base import BOOT_DIR, WINE, Fault, Launched, Launcher, module_lacking

# What the Windows environment cannot give, however this machine is equipped (each gap observed here).
_GAPS = {
    needs.CUDA: "no GPU under Wine: the Windows torch wheel of the environment is its CPU build",
    needs.DISTRIBUTED: (
        "torch.distributed's gloo collectives never return under Wine 8 (observed here: "
        "init_process_group succeeds, then a 1-element all_reduce between 2 ranks waits past 100 s); "
        "a script that joins a process group waits for a run on Windows"
    ),
}
_CHECKS = {
    needs.OPENCV: (
        lambda: (wine_env.root() / "site" / "cv2").is_dir(),
        "the Windows environment has no OpenCV (cv2): nox -s windows-env",
    ),
}


# A run's memory under Wine is not the script's alone: a worker with torch imported held 505 MB of
# anonymous memory (Pss_Anon) here, the main process 575 MB (case 24's fixed.py, two workers, 7 Dec
# 2026), against 145 MB for a worker spawned on Linux; sixty workers (case 24's broken.py) passed
# 16 GB before all had started. What of it is Wine's cannot be told apart: a run stopped at its
# memory limit is not judged here; the native columns judge the script's memory.
WINE_MEMORY = (
    "under Wine, where a worker with torch imported holds about 500 MB of memory of its own (505 MB "
    "measured here): Wine's share cannot be told from the script's, so its memory is not judged here "
    "(the native columns judge it)"
)


# Runs under Wine at once, whatever the number of jobs: with 4 beside 4 native runs on 2 CPUs, 3 and
# 4 of the 38 Windows processes of a matrix printed their result and then did not exit before the
# timeout, or left a spawned child behind (two full suites here); at 2 at once, none of 76 did.
AT_ONCE = 2


class WineLauncher(Launcher):
    name = WINE
    at_once = AT_ONCE

    def __init__(self, system: str = "") -> None:
        self._system = system  # the system whose binaries it runs (a profile's)

    def system(self) -> str:
        return self._system or super().system()

    stack_trigger = "file"  # no SIGUSR1 for a Windows process: the trigger file asks

    def for_script(self, script: Path, deadline: float | None = None) -> tuple[tuple[str, ...], str]:
        """The script's packages as Windows wheels (wine_packages.py), or why they cannot be had."""
        try:
            return wine_packages.prepare(script, deadline=deadline), ""
        except wine_packages.Unavailable as exc:
            return (), f"the Windows binaries cannot be given what the script imports: {exc}"

    def unavailable(self) -> str:
        return wine_env.unavailable()

    def missing(self, needs: tuple[str, ...]) -> str:
        reasons = [_GAPS[need] for need in needs if need in _GAPS]
        reasons += [reason for check, reason in (_CHECKS[n] for n in needs if n in _CHECKS) if not check()]
        return "; ".join(reasons)

    def interpreter(self) -> tuple[str, str]:
        known = wine_env.described()
        python = known.get("python", "?")
        return f"CPython {python} win_amd64 under {known.get('wine', 'Wine')}", python

    def describe(self) -> str:
        return wine_env.describe()

    def new_run(self, workdir: Path) -> Launched:
        return WineRun(workdir)

    def settings(self, settings: RunSettings, timeout_given: bool) -> RunSettings:
        """Each process starts in seconds under Wine (a Windows process, torch imported again): the
        time limits are wine_env.TIMEOUT_FACTOR times longer, the timeout unless one was given. The
        memory limit judges nothing here (WINE_MEMORY): it only guards the machine, at the default
        where a case raised it for its native columns."""
        factor = wine_env.TIMEOUT_FACTOR
        stall_s = settings.stall_s * factor if settings.stall_s is not None else None
        timeout_s = settings.timeout_s if timeout_given else settings.timeout_s * factor
        memory_limit_mb = min(settings.memory_limit_mb, MEMORY_LIMIT_MB)
        return dataclasses.replace(
            settings, timeout_s=timeout_s, stall_s=stall_s, memory_limit_mb=memory_limit_mb
        )

    def fault(self, observed: Observation, raised: Sequence[str]) -> Fault | None:
        """Wine failing now and then (run again): an error of its own, or the run ended before
        the Windows interpreter started; Wine lacking what a Windows DLL calls, or the Windows
        environment lacking a module (with the script's own brought by for_script)."""
        if failed := wine_env.failed_itself(raised):
            return Fault(f"Wine failed by itself ({failed})", passing=True)
        if not observed.interpreter_started:
            return Fault(f"Wine failed by itself: {_before_start(observed)}", passing=True)
        if observed.stop is Stop.MEMORY:
            return Fault(f"{observed.stop_note}, {WINE_MEMORY}")
        if gap := wine_env.gap_in(observed.output):
            return Fault(gap)
        return module_lacking(raised, self.interpreter()[0])

    def path_aliases(self, project: Path) -> dict[str, str]:
        root = wine_env.root()
        return {
            wine_env.windows_path(root): "<windows-python>",
            wine_env.windows_path(root.resolve()): "<windows-python>",
            wine_env.windows_path(project): "<project>",
        }

    def library_paths(self) -> set[str]:
        return {wine_env.windows_path(p) for p in (wine_env.root(), wine_env.root().resolve(), BOOT_DIR)}


class WineRun(Launched):
    reads_idleness = False  # a Windows process waits through Wine's server, whose waits it cannot read

    def __init__(self, workdir: Path) -> None:
        self.prefix = wine_env.new_prefix(workdir)
        self.probe_dir = workdir / "probes"
        self.pipe: wine_env.OutputPipe | None = None
        self.windows: wine_env.WindowsProcesses | None = None

    def start(self, command, env, *, script, output, stdin, cwd, wrap) -> subprocess.Popen:
        command, env = wrap(wine_env.command(command, script), wine_env.environment(env, self.prefix))
        output.touch()
        self.pipe = wine_env.OutputPipe(output)
        # Wine 8's Windows interpreter takes no regular file as stdin either: it is fed through a pipe.
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=self.pipe.write,
            stderr=subprocess.STDOUT, cwd=cwd, env=env, **processes.NEW_GROUP,
        )  # fmt: skip
        self.pipe.started()
        if stdin:
            wine_env.feed(self.proc.stdin, stdin.read_bytes())
        self.windows = wine_env.WindowsProcesses(self.proc.pid, self.probe_dir)
        return self.proc

    def snapshot(self) -> list:
        return self.windows.snapshot()

    def main_pids(self, script_pid: int) -> tuple[int, int]:
        return (
            self.proc.pid,
            self.proc.pid,
        )  # the probes name Windows pids: the launched one is the script's

    def dump_stacks(self, tree: list, probe_dir: Path, workers: int) -> tuple[dict, dict, str]:
        return wine_env.dump_stacks(probe_dir, workers + 1), {}, ""

    def by_machine_pid(self, by_script_pid: dict) -> dict:
        return self.windows.by_linux_pid(by_script_pid)

    def may_still_end(self, left: list, waited_s: float, idle_s: float) -> bool:
        """A spawned child still starting (importing the script, torch with it) ends by itself,
        with its error: waited for while it works, not once it waits on nothing."""
        return waited_s < wine_env.LEFTOVER_LIMIT_S and idle_s < wine_env.LEFTOVER_IDLE_S

    def is_own_helper(self, process) -> bool:
        return wine_env.is_service(process)

    def finish(self, kill_all) -> None:
        wine_env.end_prefix(self.prefix)  # Wine's services for the run, and its wineserver
        kill_all()  # what `wineserver -k` leaves: a service whose main thread ended while a thread polls on
        self.pipe.finish()  # every writer is gone: the output is whole


def _before_start(observed: Observation) -> str:
    """How a run ended before the Windows interpreter started (its boot module never ran), in words."""
    ended = f"exit status {observed.returncode}" if observed.returncode is not None else observed.stop.value
    lines = observed.output.strip().splitlines()
    said = f"its last line: {lines[-1][:200]}" if lines else "no output"
    took = f"{observed.duration_s:.2g} s in"
    return f"the run ended ({ended}, {said}) {took}, before the Windows interpreter started"
