"""The launcher interface (harness/run/launch/__init__.py says the family): `Launcher`, the run it
starts (`Launched`) and how a run was made (`How`)."""

from __future__ import annotations

import importlib.util
import platform
import re
import subprocess
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ... import environment
from ..observation import Observation
from ..settings import RunSettings

BOOT_DIR = Path(__file__).resolve().parents[2] / "boot"  # put first on every run's PYTHONPATH
NATIVE = "native"
WINE = "wine"
CHROOT = "chroot"
SAME_SYSTEM = frozenset({NATIVE, CHROOT})  # launchers whose runs are this system's own


@dataclass(frozen=True)
class How:
    """How a run was made, recorded with its result: the launcher, the interpreter it ran, its
    Python version, and whether the profile was imitated by the boot module (emulated) rather than
    being what that interpreter does anyway."""

    launcher: str
    interpreter: str
    python: str
    emulated: bool

    NATIVE = NATIVE  # kinds (`kind`): natively, emulated, or a launcher's name
    EMULATED = "emulated"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> How:
        return cls(**{name: data[name] for name in ("launcher", "interpreter", "python", "emulated")})

    @property
    def kind(self) -> str:
        """ "emulated" where the profile was imitated; "native" where this system's own interpreter
        ran it as it is (here, or in a chroot); else the launcher of another system's binaries
        ("wine"): what the site says about a column."""
        if self.emulated:
            return How.EMULATED
        return How.NATIVE if self.launcher in SAME_SYSTEM else self.launcher


@dataclass(frozen=True)
class Fault:
    """A run's failure that was its way of running's own doing, not the script's."""

    reason: str  # in words, said with the run's result
    passing: bool = False  # it does not recur: the run is made once more; else it shows nothing


# What CPython raises for a module it cannot find, wherever the import was.
MODULE_NOT_FOUND = re.compile(r"ModuleNotFoundError: No module named '(?P<module>[\w.]+)'")


def module_lacking(raised: Sequence[str], interpreter: str) -> Fault | None:
    """For a way of running another interpreter than this one (the user's): a module it could not
    import that imports in this one is what that interpreter lacks, not what the script does. A
    module missing here too is the script's (None)."""
    for line in raised:
        found = MODULE_NOT_FOUND.search(line)
        if found and _imports_here(found["module"]):
            return Fault(
                f"the interpreter of this column ({interpreter}) has no module '{found['module']}', which "
                f"imports in this one ({sys.executable}): what that environment lacks, not an outcome "
                "of the script"
            )
    return None


def _imports_here(module: str) -> bool:
    try:
        return importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


class Launched(ABC):
    """One started run, as its launcher sees it: its process, its processes, their stacks, its end."""

    proc: subprocess.Popen
    # Whether the runner's reading of idleness (no CPU, a worker blocked on a lock) holds here.
    reads_idleness: bool = True

    @abstractmethod
    def start(self, command: list[str], env: dict, *, script: Path, output: Path, stdin: Path | None,
              cwd: Path, wrap) -> subprocess.Popen:  # fmt: skip
        """Starts `command` (this interpreter's, as the runner builds it) this launcher's way.
        `stdin`: a file fed to its standard input (None: none). `wrap(command, env)` adds what
        the runner puts around it (its confinements:
        harness/run/confine/), after the launcher's own changes."""

    @abstractmethod
    def snapshot(self) -> list:
        """The launched process and the script's processes now."""

    @abstractmethod
    def main_pids(self, script_pid: int) -> tuple[int, int]:
        """The launched process and the script's interpreter, as this machine's pids."""

    @abstractmethod
    def dump_stacks(self, tree: list, probe_dir: Path, workers: int) -> tuple[dict, dict, str]:
        """(Python stacks, native stacks, a note on the native ones) of the run's processes."""

    @abstractmethod
    def by_machine_pid(self, by_script_pid: dict) -> dict:
        """`by_script_pid` (keyed by the pids the probes name) keyed by this machine's pids."""

    @abstractmethod
    def may_still_end(self, left: list, waited_s: float, idle_s: float) -> bool:
        """Whether the processes `left` after the script's exit may still end by themselves, waited
        for `waited_s` so far, the run's processes using no CPU for the last `idle_s`."""

    @abstractmethod
    def is_own_helper(self, process) -> bool:
        """Whether `process` is the launcher's own (it ends with the run), not the script's."""

    @abstractmethod
    def finish(self, kill_all) -> None:
        """Ends what the launcher started besides the script's processes; `kill_all()` ends every
        process of the run that is left."""


class Launcher(ABC):
    """One way of running a script; `Profile.launcher` chooses one per profile, once."""

    name: str
    stack_trigger: str  # how the boot module is asked for stacks (harness/boot/dlp_stacks.py)
    at_once: int | None = None  # at most this many runs launched this way at once (None: no cap)

    @abstractmethod
    def unavailable(self) -> str:
        """Why runs cannot be launched this way here, and what to do; "" when they can."""

    @abstractmethod
    def missing(self, needs: tuple[str, ...]) -> str:
        """The reasons, joined, why a case's `needs` are not met where this launcher runs it."""

    @abstractmethod
    def interpreter(self) -> tuple[str, str]:
        """(the interpreter in words, its Python version) for `How`."""

    @abstractmethod
    def new_run(self, workdir: Path) -> Launched:
        """A run to start, in `workdir` (its own folder)."""

    def for_script(self, script: Path, deadline: float | None = None) -> tuple[tuple[str, ...], str]:
        """(folders to put first on the run's PYTHONPATH, why the script cannot run this way) for
        what this script imports that the way's interpreter lacks; ((), "") where it needs nothing.
        Prepared by `deadline` (time.monotonic()), where one is given."""
        return (), ""

    def describe(self) -> str:
        """What another system's binaries run this way are, in words (under Wine); "" for this
        system's own interpreters."""
        return ""

    def system(self) -> str:
        """The system its runs see: platform.system().lower() of the interpreter it runs."""
        return platform.system().lower()

    def python_version(self) -> tuple[int, ...]:
        """The Python version of the interpreter it runs."""
        return tuple(int(part) for part in self.interpreter()[1].split(".")[:3] if part.isdigit())

    def environment(self) -> dict:
        """What a result depends on (OS, Python, packages), as the interpreter it runs has it."""
        return environment.describe()

    def how(self, emulated: bool) -> How:
        interpreter, python = self.interpreter()
        return How(self.name, interpreter, python, emulated)

    def settings(self, settings: RunSettings, timeout_given: bool) -> RunSettings:
        """The settings a run gets this way (a slower way stretches its time limits)."""
        return settings

    def fault(self, observed: Observation, raised: Sequence[str]) -> Fault | None:
        """What a failed run `observed` (its whole output, whether its interpreter started), and
        what its processes `raised` (the lines of the script's own exceptions), show of this way
        of running failing by itself, not the script; None where they show no such thing
        (harness/verdict.py `report` decides what follows)."""
        return None

    def path_aliases(self, project: Path) -> dict[str, str]:
        """Paths as runs launched this way name them, and the neutral names recorded instead."""
        return {}

    def library_paths(self) -> set[str]:
        """Where Python and installed packages live, as runs launched this way name them."""
        return set()


def this_interpreter() -> tuple[str, str]:
    version = ".".join(map(str, sys.version_info[:3]))
    return f"{platform.python_implementation()} {version} {sys.platform} {platform.machine()}", version
