"""Runs one unmodified script under one start method, in isolation, under a timeout.

A run has three steps: `_launch` (its own folder, environment and process session), `_wait` (for
its exit, or for a reason to stop it) and `_end` (stacks first where it hung, then every process
of the run ended, and its shared memory removed). Nothing of the run outlives `run_script`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..boot import dlp_contract as contract
from . import confine, idleness, probe_records, processes, shm_leftovers
from .active_runs import ACTIVE_RUNS
from .launch import BOOT_DIR, Launched, Launcher
from .memory import MemoryMonitor, machine_oom_kills
from .observation import Observation, Stop
from .settings import LATE_STOP_S, RunSettings

# Runs code read from stdin in __main__ without giving __main__ a file, as an interactive session
# does. (Plain `python -` sets __file__ to "<stdin>", which spawned children try to open as a file.)
INTERACTIVE_MAIN = "import sys; exec(compile(sys.stdin.read(), '<stdin>', 'exec'))"
OUTPUT_READ_LIMIT = 1 << 20  # bytes of the output's end that classification reads
OUTPUT_LIMIT_BYTES = 64 << 20  # a run that writes more is stopped: its output must not fill the disk
POLL_INTERVAL_S = 0.1  # how soon the script's exit is noticed
CHECK_INTERVAL_S = 0.25  # how often its processes, memory, output and shared memory are looked at

BOOT_EXIT_CODE = contract.BOOT_EXIT_CODE  # the boot module could not impose the profile


class Profile(Protocol):
    """What the runner needs of a profile (harness/profiles.py): its name, the variables that tell
    the boot module what to impose, and the launcher it chose."""

    name: str
    launcher: Launcher

    def environment(self) -> dict[str, str]: ...


def child_environment(
    profile: Profile,
    probe_dir: Path,
    run_id: str,
    extra_path: list[str] | None = None,
    tmp_dir: Path | None = None,
) -> dict[str, str]:
    """The run's environment: the boot folder first on PYTHONPATH, the profile's settings, and, with
    `tmp_dir`, a temporary directory of its own (TMPDIR, TEMP, TMP), so that runs of the same script
    in parallel never meet in a fixed file under the system's temporary directory."""
    env = {name: value for name, value in os.environ.items() if name not in contract.RUN_VARIABLES}
    inherited = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    python_path = [str(BOOT_DIR), *(extra_path or []), *inherited]
    env.update(
        PYTHONPATH=os.pathsep.join(python_path),
        PYTHONUNBUFFERED="1",  # output of parent and workers interleaves in the order written
        PYTHONIOENCODING="utf-8",  # the output file is read as UTF-8, whatever the console's code page
        **profile.environment(),
        **{
            contract.PROBE_DIR: str(probe_dir),
            contract.STACK_TRIGGER: profile.launcher.stack_trigger,
            contract.RUN_ID: run_id,
        },
    )
    if tmp_dir is not None:
        env.update(TMPDIR=str(tmp_dir), TEMP=str(tmp_dir), TMP=str(tmp_dir))
    return env


def read_tail(path: Path, limit: int = OUTPUT_READ_LIMIT) -> str:
    with open(path, "rb") as output:
        output.seek(0, os.SEEK_END)
        size = output.tell()
        output.seek(max(0, size - limit))
        data = output.read()
    return data.decode("utf-8", errors="replace").replace("\x00", "")


@dataclass
class _Run:
    """One launched run: its folder, its processes and what watches them."""

    workdir: Path
    run_id: str
    proc: subprocess.Popen
    launched: Launched  # how it was started: its launcher's view of its processes
    started: float  # time.monotonic() at launch
    wall_started: float  # time.time() at launch
    monitor: MemoryMonitor
    progress: probe_records.ProgressWatch
    warm: probe_records.WarmWatch  # the workers' end of warm-up, read as the run goes on
    cpu: idleness.CpuWatch
    shared: shm_leftovers.ShmWatch
    confined: list[confine.Confined] = field(default_factory=list)  # what its settings ask for
    oom_kills_before: int | None = None  # the machine's OOM kills at launch (machine_oom_kills)
    tree: list = field(default_factory=list)  # the run's processes at the last tick
    _main_pid: int | None = None

    @property
    def probe_dir(self) -> Path:
        return self.workdir / "probes"

    @property
    def output_path(self) -> Path:
        return self.workdir / "output.txt"

    @property
    def session_id(self) -> int | None:
        return self.proc.pid if processes.NEW_SESSION else None  # the child leads its own session

    def known_main_pid(self) -> int | None:
        """The script's interpreter, as the boot module wrote it (on Windows a venv's python.exe is a
        launcher whose child is the interpreter); None until it is written."""
        if self._main_pid is None:
            with contextlib.suppress(OSError, ValueError):
                self._main_pid = int((self.probe_dir / contract.MAIN_PID_FILE).read_text())
        return self._main_pid

    @property
    def main_pid(self) -> int:
        """The script's interpreter; the launched process until the boot module named it."""
        return self.known_main_pid() or self.proc.pid

    @property
    def main_pids(self) -> tuple[int, int]:
        """The launched process and the script's interpreter (the same process but on Windows), as
        this machine's pids."""
        return self.launched.main_pids(self.main_pid)

    def snapshot(self) -> list:
        """The launched process and the script's processes now: one look a tick."""
        return self.launched.snapshot()

    def processes(self) -> list:
        return processes.find_run_processes(self.proc.pid, self.run_id, self.session_id)

    def boot_failure(self) -> str:
        """Why the boot module could not impose the profile; "" when it did."""
        try:
            return (self.probe_dir / contract.BOOT_FAILED_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return ""


def run_script(script: Path, profile: Profile, settings: RunSettings) -> Observation:
    """Runs `python -X faulthandler script args` as __main__ with `profile` imposed.

    The run gets its own working directory, its own temporary directory (TMPDIR, TEMP, TMP) and its
    own process session; stdout and stderr go to one file. When it must be stopped while it may be
    stuck (timeout, stall, memory or output limit), the Python stacks (and, with py-spy, the native
    stacks) of every process are collected first, then the whole tree is ended. A run past the
    process limit (a script launching itself again and again) is killed at once, without stacks.
    With `via_stdin` the script's folder is put on PYTHONPATH, as a notebook's own folder is
    importable.
    """
    workdir = Path(tempfile.mkdtemp(prefix="dlp-run-"))
    confined: list[confine.Confined] = []
    observation = None
    try:
        confined = confine.made(settings)
        script = Path(script).resolve()
        run = _launch(script, profile, settings, workdir, confined)
        label = f"{script.parent.name}/{script.name} under {profile.name}"
        ACTIVE_RUNS.add(run.proc.pid, run.run_id, run.session_id, run.probe_dir, label)
        try:
            stop = _wait(run, settings)
            observation = _end(run, stop, settings)
        except BaseException:  # the harness failed or was interrupted: the run must not outlive it
            processes.terminate(run.processes(), grace_s=1.0)
            raise
        finally:
            ACTIVE_RUNS.remove(run.proc.pid)
        _read_records(run, observation, settings)
        return observation
    finally:  # never raises: what it could not remove is said with the result, which stands
        left = _remove_run_folders(workdir, confined)
        if observation is not None:
            observation.not_removed = left


def _remove_run_folders(workdir: Path, confined: list[confine.Confined]) -> list[str]:
    """Removes the run's folder and closes its confinements; returns what is left of them, said."""
    shutil.rmtree(workdir, ignore_errors=True)
    left = [f"the run's folder {workdir}"] if workdir.exists() else []
    return [*left, *confine.close(confined)]


def _launch(
    script: Path, profile: Profile, settings: RunSettings, workdir: Path, confined: list[confine.Confined]
) -> _Run:
    (workdir / "probes").mkdir()
    (workdir / "tmp").mkdir()
    run_id = uuid.uuid4().hex
    target = ["-c", INTERACTIVE_MAIN] if settings.via_stdin else [str(script)]
    command = [sys.executable, "-X", "faulthandler", *target, *settings.args]
    extra_path = [*settings.python_path, *([str(script.parent)] if settings.via_stdin else [])]
    env = child_environment(profile, workdir / "probes", run_id, extra_path, tmp_dir=workdir / "tmp")

    launched = profile.launcher.new_run(workdir)
    shared = shm_leftovers.ShmWatch()  # what /dev/shm held before the run
    oom_kills_before = machine_oom_kills()
    wall_started, started = time.time(), time.monotonic()
    proc = launched.start(
        command, env, script=script, output=workdir / "output.txt",
        stdin=script if settings.via_stdin else None, cwd=settings.cwd or workdir,
        wrap=lambda command, env: confine.wrapped(confined, command, env),
    )  # fmt: skip
    return _Run(
        workdir=workdir,
        run_id=run_id,
        proc=proc,
        launched=launched,
        started=started,
        wall_started=wall_started,
        monitor=MemoryMonitor(proc.pid, started, settings.memory_interval_s),
        progress=probe_records.ProgressWatch(started),
        warm=probe_records.WarmWatch(wall_started),
        cpu=idleness.CpuWatch(started),
        shared=shared,
        confined=confined,
        oom_kills_before=oom_kills_before,
    )


def _wait(run: _Run, settings: RunSettings) -> Stop:
    """Waits for the script's exit (Stop.EXITED), or until there is a reason to stop it."""
    deadline = run.started + settings.timeout_s
    cut = settings.deadline is not None and settings.deadline < deadline  # the command's comes first
    deadline = min(deadline, settings.deadline) if cut else deadline
    check_every = min(CHECK_INTERVAL_S, settings.memory_interval_s or CHECK_INTERVAL_S)
    next_check = 0.0
    while time.monotonic() < deadline:
        try:
            run.proc.wait(timeout=POLL_INTERVAL_S)
            return Stop.EXITED
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now >= next_check:
            next_check = now + check_every
            run.tree = run.snapshot()  # one look a tick, handed to every watcher
            run.cpu.poll(_script_processes(run, run.tree), now)  # whether it works or waits
            stop = _limit_passed(run, settings, now) or _progress_says(run, settings, now)
            if stop:
                return stop
    return Stop.DEADLINE if cut else Stop.TIMEOUT


def _limit_passed(run: _Run, settings: RunSettings, now: float) -> Stop | None:
    run.monitor.main_pid = run.main_pids[1] if run.known_main_pid() else None  # workers told apart once known
    if settings.memory_interval_s is not None:
        run.monitor.mark_warm(run.launched.by_machine_pid(run.warm.poll(run.probe_dir)))
    if run.monitor.over(run.tree, now, settings.memory_limit_mb):
        return Stop.MEMORY
    if len(run.tree) > settings.process_limit:
        return Stop.PROCESSES
    run.shared.poll([p.pid for p in run.tree])
    if run.output_path.stat().st_size > OUTPUT_LIMIT_BYTES:
        return Stop.OUTPUT
    return None


def _progress_says(run: _Run, settings: RunSettings, now: float) -> Stop | None:
    if not settings.watches_progress:
        return None
    run.progress.poll(run.probe_dir / f"{run.main_pid}{contract.EVENTS_SUFFIX}", now)
    if _sampled_enough(run, settings, now):
        return Stop.BATCHES
    stalled = settings.stall_s is not None and now - run.progress.last_progress > _stall_limit(settings)
    if stalled and run.progress.iterating and _waits(run, settings, now):
        return Stop.STALL  # no batch, and its processes wait: a slow loader that works is given its time
    return Stop.IDLE if _idle_for_good(run, settings, now) else None


def _sampled_enough(run: _Run, settings: RunSettings, now: float) -> bool:
    """The loaders delivered the batches asked for, and the window for trends was seen: as many
    batches after the first, as many memory samples of each worker, as the settings ask, and a
    later epoch where a measurement needs one; or the window's time limit passed since the first
    batch (for a later epoch: the run's own time is nearly over)."""
    progress = run.progress
    if settings.stop_after_batches is None or progress.batches < settings.stop_after_batches:
        return False
    if progress.first_batch is None:
        return False
    if settings.later_epoch and not progress.later_epoch_ended:
        return now >= _time_left_for(run, settings) - LATE_STOP_S
    if now - progress.first_batch >= settings.sample_limit_s:
        return True
    if progress.batches - 1 < settings.sample_batches:
        return False
    return run.monitor.fewest_worker_samples() >= settings.sample_memory


def _waits(run: _Run, settings: RunSettings, now: float) -> bool:
    """Its processes used almost no CPU over the last `quiet_s`, nor waited for one: they wait,
    they do not work (a busy machine's starved run queues for the CPU it does not get)."""
    return idleness.waits(run.cpu.share(now, settings.quiet_s), run.cpu.queued(now, settings.quiet_s))


def _time_left_for(run: _Run, settings: RunSettings) -> float:
    """When the run would be stopped anyway: its timeout, or the command's deadline if sooner."""
    ends = run.started + settings.timeout_s
    return ends if settings.deadline is None else min(ends, settings.deadline)


def _stall_limit(settings: RunSettings) -> float:
    """`stall_s`, stretched by the load: more runnable processes than CPUs serve each one slower."""
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except (AttributeError, OSError):  # no load average (Windows)
        load = 1.0
    return settings.stall_s * max(1.0, load)


def _idle_for_good(run: _Run, settings: RunSettings, now: float) -> bool:
    """The main process waits for a batch, no process used the CPU for `idle_s`, and a worker is
    blocked on a lock with no timeout: nothing is left running that could wake it. Not where the
    launcher says this reading does not hold (a Windows process waits through Wine's server)."""
    if settings.idle_s is None or not run.launched.reads_idleness or not run.progress.waiting:
        return False
    if now - max(run.cpu.last_busy, run.progress.last_progress) < settings.idle_s:
        return False
    return bool(_blocked_workers(run, run.tree))


def _blocked_workers(run: _Run, tree: list) -> list[int]:
    """The workers blocked for good (a lock with no timeout), where the launcher can read it."""
    if not run.launched.reads_idleness:
        return []
    return [w.pid for w in processes.workers(tree, run.main_pids) if idleness.blocked_for_good(w.pid)]


def _end(run: _Run, stop: Stop, settings: RunSettings) -> Observation:
    """Ends every process of the run as `stop` asks, then what outlived the script."""
    observation = Observation(stop=stop, stop_note=_stop_note(run, stop, settings), root_pid=run.main_pid)
    observation.interpreter_started = run.known_main_pid() is not None
    observation.batches = run.progress.batches
    if stop is Stop.PROCESSES:
        run.shared.poll([p.pid for p in run.tree])
        processes.kill_all(run.proc.pid, run.run_id, run.session_id)
    elif stop is not Stop.EXITED:
        tree = run.processes()
        run.shared.poll([p.pid for p in tree], force=True)
        if stop.hung:  # what shows that it waits: little CPU used lately, workers blocked for good
            now = time.monotonic()
            share, queued = run.cpu.share(now, settings.quiet_s), run.cpu.queued(now, settings.quiet_s)
            observation.cpu_share = None if share is None else round(share, 3)
            observation.cpu_queued = None if queued is None else round(queued, 3)
            observation.blocked = _blocked_workers(run, tree)
        if stop.takes_stacks:
            own = _script_processes(run, tree)
            workers = len(processes.workers(own, run.main_pids))
            stacks = run.launched.dump_stacks(tree, run.probe_dir, workers)
            observation.stacks, observation.native_stacks, observation.native_stacks_note = stacks
        # The cleanup helpers (torch_shm_manager, the resource tracker) outlive their clients to
        # remove what those shared: ended with them, they would leave it in /dev/shm, the
        # harness's doing reported as the script's. They end by themselves (_end_leftovers).
        processes.terminate([p for p in tree if not processes.is_cleanup_helper(p)])
    run.proc.wait()
    if stop is Stop.BATCHES:
        observation.stopped_after_batches = run.progress.batches
    observation.returncode = {Stop.EXITED: run.proc.returncode, Stop.BATCHES: 0}.get(stop)
    observation.duration_s = round(time.monotonic() - run.started, 3)
    observation.leftovers = _end_leftovers(run)
    observation.shm_leftovers = run.shared.remove_leftovers()
    if run.oom_kills_before is not None and (now_kills := machine_oom_kills()) is not None:
        observation.machine_oom_kills = now_kills - run.oom_kills_before
    for each in run.confined:
        each.observe(observation)
    return observation


def _stop_note(run: _Run, stop: Stop, settings: RunSettings) -> str:
    if stop is Stop.PROCESSES:
        return (
            f"the run started over {settings.process_limit} processes at once "
            f"({len(run.tree)} seen): does it launch itself again without an "
            "`if __name__ == '__main__':` guard? Stopped by the harness"
        )
    if stop is Stop.OUTPUT:
        return f"the run wrote over {OUTPUT_LIMIT_BYTES >> 20} MB of output; stopped by the harness"
    if stop is Stop.MEMORY:
        return (
            f"the run's memory reached {run.monitor.confirmed_mb:.0f} MB, over its limit of "
            f"{settings.memory_limit_mb:.0f} MB; stopped by the harness"
        )
    if stop is Stop.STALL:
        return f"no batch for {_stall_limit(settings):.0f} s"
    if stop is Stop.DEADLINE:
        return (
            f"the command's deadline came {time.monotonic() - run.started:.0f} s into the run, before it "
            f"ended or reached its own timeout of {settings.timeout_s:g} s: stopped, not judged"
        )
    if stop is Stop.IDLE:
        return (
            f"idle {settings.idle_s:g} s waiting for a batch, no CPU used, a worker blocked on a lock "
            "with no timeout"
        )
    return ""


def _read_records(run: _Run, observation: Observation, settings: RunSettings) -> None:
    """What the probes recorded (DataLoader epochs, workers' start of service) and the output."""
    recorded = probe_records.read(run.probe_dir)
    observation.loader_epochs = probe_records.loader_epochs(recorded, run.main_pid, run.wall_started)
    observation.rng = probe_records.rng_fingerprints(recorded)
    observation.dataset_sizes = probe_records.dataset_sizes(recorded)
    observation.dataset_bytes = probe_records.dataset_bytes(recorded)
    observation.first_batches = probe_records.first_batches(recorded)
    observation.streams = probe_records.streams(recorded)
    observation.import_effects = probe_records.import_effects(recorded)
    observation.logging = probe_records.logging_records(recorded)
    observation.samples = probe_records.samples(recorded)
    if run.proc.returncode == BOOT_EXIT_CODE:
        observation.boot_failure = run.boot_failure()
    if settings.memory_interval_s is not None:
        ready = probe_records.worker_ready(recorded, run.wall_started)
        run.monitor.mark_warm(
            run.launched.by_machine_pid(probe_records.worker_warm(recorded, run.wall_started))
        )
        iterated = any(fields[0] == "iter" for lines in recorded.values() for fields in lines)
        run.monitor.mark_ready(run.launched.by_machine_pid(ready), iterated)
        observation.memory = run.monitor.to_json()
    observation.output = read_tail(run.output_path)


def _end_leftovers(run: _Run) -> list[str]:
    """Processes of the run still alive after its main process ended: waited for, then killed.

    Returns a description of each ("pid N, parent P: command"), less those already exiting (ended
    with the script; the kernel is still unmapping their memory), which are only waited for.
    """
    started = time.monotonic()
    cpu = idleness.CpuWatch(started)  # the run's processes, the launcher's helpers with them
    left = _script_processes(run)
    while left:
        now = time.monotonic()
        cpu.poll(run.processes(), now)
        if not run.launched.may_still_end(left, now - started, now - cpu.last_busy):
            break
        time.sleep(POLL_INTERVAL_S)
        left = _script_processes(run)
    # A process already exiting ended with the script: it is finished off, not reported as left.
    outlived = [p for p in left if not processes.is_exiting(p)]
    described = [processes.describe(p) for p in sorted(outlived, key=lambda p: p.pid)]
    if left:
        run.shared.poll([p.pid for p in left], force=True)
        processes.terminate(left)
    run.launched.finish(lambda: processes.kill_all(run.proc.pid, run.run_id, run.session_id))
    return described


def _script_processes(run: _Run, tree: list | None = None) -> list:
    """The run's processes (`tree`, else found now), less the launcher's own helpers (which end
    with its `finish`)."""
    return [p for p in (run.processes() if tree is None else tree) if not run.launched.is_own_helper(p)]
