"""Profiles: what one column of the comparison imposes on every process of a run.

A start method alone is not a platform. A profile is the start method plus what the platform it
names does differently, imposed by the boot module in the script's process and in every process
it starts:

- `linux`: fork, Linux's default up to Python 3.13.
- `linux-3.14`: forkserver as CPython 3.14.3+ (and 3.13.12+) runs it: the server imports the main
  script once, with the script's `sys.argv`, and every worker is a fork of that server. Older
  interpreters never preloaded `__main__` (CPython issues 126631, 137996; fixed by PR 135295 in
  3.14.1 and 3.13.8, which preloaded it with the server's own `sys.argv` until gh-143706 in 3.14.3
  and 3.13.12): there the boot module applies the upstream behaviour, and the run says it was
  emulated.
- `windows`: the official Windows CPython and torch's Windows wheels. Natively on Windows; on
  Linux under Wine (harness/run/launch/wine.py and wine_env.py), where the environment is
  prepared (`nox -s windows-env`).
  Nothing is imposed: spawn and torch's `file_system` strategy are what Windows has.
- `windows-emulated`: Windows imitated by this machine's own interpreter: spawn; torch's
  `file_system` sharing strategy (its only one there); no SIGCHLD handler in the DataLoader (torch
  skips it on Windows); no descriptor inherited beyond what is passed on purpose, as with Windows
  handles; and what Windows lacks hidden from the script: the fork and forkserver start methods,
  `os.fork`, the `resource` and `fcntl` modules. Its expectations are the `windows` profile's.
- `macos`: spawn and torch's `file_system` sharing strategy, as torch sets on macOS.

A profile runs natively on the system it names and is emulated on Linux (the `windows` profile runs
Windows' own binaries there, under Wine); elsewhere it is skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import platform
from dataclasses import dataclass

from .boot import dlp_contract as contract
from .run import confine, launch

START_METHODS = ("fork", "forkserver", "spawn")
SYSTEM_NAMES = {"linux": "Linux", "windows": "Windows", "darwin": "macOS"}


@dataclass(frozen=True)
class Profile:
    name: str
    start_method: str
    system: str  # platform.system().lower() of what it stands for
    title: str  # the column's heading
    imposes: str = ""  # in words, for the site
    limits: str = ""  # what an emulation of it on Linux cannot show, for the site
    sharing_strategy: str | None = None  # torch.multiprocessing's, set in every process
    preload_main: bool = False  # forkserver imports the main script once, in the server
    native_from: tuple[int, ...] = ()  # the first Python version that is this profile natively
    windows_apis: bool = False  # what Windows lacks is hidden; no SIGCHLD handler in DataLoader
    way: str = launch.NATIVE  # how its runs are launched: launch.WINE, the Windows binaries off Windows
    stands_for: str = ""  # the profile whose expectations it shares (an emulation of it)
    # Its expectations were written from runs here (Linux): a native run needs no confirmation.
    baseline: bool = False
    platform_name: str = ""  # how a sentence names its platform (default: its system's name)
    shown_in: tuple[str, ...] = ()  # the site's selections it belongs to: "causes", "memory plot"
    # What the platform confines every process to by default, as (setting, size) pairs of
    # harness/run/confine/; a run that sets one itself keeps its own.
    confined: tuple[tuple[str, float], ...] = ()

    @property
    def platform(self) -> str:
        """ "Windows", "macOS", "Python 3.14": what a sentence calls the platform it stands for."""
        return self.platform_name or SYSTEM_NAMES.get(self.system, self.system)

    @property
    def expectation_names(self) -> tuple[str, ...]:
        """The case.toml keys that say what it should do, most specific first."""
        return tuple(n for n in (self.name, self.stands_for, self.start_method) if n)

    @functools.cached_property
    def launcher(self) -> launch.Launcher:
        """How its runs are launched on this machine (harness/run/launch), chosen once."""
        return launch.choose(self.way, self.system)

    def launched_by(self, launcher: launch.Launcher) -> Profile:
        """This profile with its runs launched by `launcher` (another interpreter: a chroot's)."""
        copy = dataclasses.replace(self)
        copy.__dict__["launcher"] = launcher  # what the cached property would have chosen
        return copy

    def how(self) -> launch.How:
        """How a run of this profile is made on this machine, as its result records it."""
        launcher = self.launcher
        native = self.runs_natively(launcher.system(), launcher.python_version())
        return launcher.how(emulated=not launcher.describe() and not native)

    def runs_natively(self, system: str, version: tuple[int, ...]) -> bool:
        """Whether a run on `system` with Python `version` is this profile with nothing emulated."""
        return system == self.system and version >= self.native_from

    def emulation(self, system: str | None = None, version: tuple[int, ...] | None = None) -> str:
        """How a run here imitates the profile; "" where it runs natively. Under Wine: what ran
        ("Windows binaries under Wine 8.0: CPython 3.13.2 win_amd64, torch …"), not Windows."""
        launcher = self.launcher if system is None else launch.choose(self.way, self.system, here=system)
        if launcher.describe():
            return launcher.describe()
        system = system or launcher.system()
        version = version or launcher.python_version()
        if self.runs_natively(system, version):
            return ""
        python = ".".join(map(str, version[:2]))
        parts = [f"{self.start_method} on {SYSTEM_NAMES.get(system, system)}, Python {python}"]
        if self.preload_main:
            parts.append("__main__ preloaded in the forkserver, with its argv, as CPython 3.14.3+ does")
        if self.sharing_strategy:
            parts.append(f"torch's {self.sharing_strategy} sharing strategy in every process")
        if self.windows_apis:
            parts.append(
                "fork, forkserver, os.fork, resource and fcntl hidden; no SIGCHLD handler; "
                "no inherited descriptors"
            )
        parts += confine.said(dict(self.confined))
        return "; ".join(parts)

    def environment(self) -> dict[str, str]:
        """The variables that tell the boot module what to impose."""
        variables = {contract.START_METHOD: self.start_method}
        if self.sharing_strategy:
            variables[contract.SHARING_STRATEGY] = self.sharing_strategy
        if self.preload_main:
            variables[contract.PRELOAD_MAIN] = "1"
        if self.windows_apis:
            variables[contract.WINDOWS_APIS] = "1"
        return variables


PROFILES = {
    profile.name: profile
    for profile in (
        Profile(
            "linux",
            "fork",
            "linux",
            "Linux, Python ≤ 3.13",
            imposes="fork, the default start method on Linux up to Python 3.13.",
            baseline=True,
            shown_in=("causes", "memory plot"),
        ),
        Profile(
            "linux-3.14",
            "forkserver",
            "linux",
            "Linux, Python ≥ 3.14",
            imposes=(
                "forkserver, the default on Linux from Python 3.14, as CPython 3.14.1+ and 3.13.8+ run it: "
                "the server imports the main script once and every worker is a fork of that server "
                "(CPython PR 135295). The import sees the script's `sys.argv` from 3.14.3 and 3.13.12 "
                "(gh-143706), as here; 3.14.1, 3.14.2 and 3.13.8 to 3.13.11 give it the server's own. "
                "Older interpreters never preloaded the main script; there the harness applies the fixed "
                "behaviour."
            ),
            limits=(
                "An emulation on an older Python cannot show the rest of 3.14: its error texts (a lambda "
                "fails with `PicklingError: Can't pickle local object <function …>`), the forkserver's "
                "authentication, free-threaded builds, or what torch does differently on 3.14."
            ),
            preload_main=True,
            native_from=(3, 14, 1),  # 3.13.8 preloads too, but is not 3.14
            platform_name="Python 3.14",
            shown_in=("causes",),
        ),
        Profile(
            "windows",
            "spawn",
            "windows",
            "Windows",
            imposes=(
                "nothing: the official Windows CPython and torch's Windows wheels run the script, with "
                "spawn and torch's `file_system` sharing strategy because that is what Windows has. On "
                "Windows itself natively; on Linux under Wine, which runs the same binaries."
            ),
            limits=(
                "Under Wine the binaries are Windows', the system is not: Windows' own process creation "
                "and its cost (Wine's timings are not Windows timings), the console, antivirus scanning, "
                "paths on drives other than Wine's Z:, and a GPU driver are not shown."
            ),
            way=launch.WINE,
            shown_in=("causes",),
        ),
        Profile(
            "windows-emulated",
            "spawn",
            "windows",
            "Windows, emulated on Linux",
            imposes=(
                "spawn, the only start method on Windows; torch's `file_system` sharing strategy, its only "
                "one there; no SIGCHLD handler in the DataLoader (torch installs none on Windows); and what "
                "Windows lacks hidden from the script: the fork and forkserver start methods, `os.fork`, "
                "the `resource` and `fcntl` modules. Every descriptor a process inherits is made "
                "non-inheritable, as handles are on Windows: otherwise the `torch_shm_manager` that a "
                "Linux worker starts (Windows has none) would hold the worker's spawn sentinel open and "
                "the DataLoader would wait 5 s per worker at shutdown."
            ),
            limits=(
                "An emulation on Linux cannot show Windows itself: process creation (slower than a Linux "
                "spawn), the console and its code page, file locking and paths, `sys.platform`, the "
                "kernel32 watchdog that a worker uses to notice its parent's death, or a GPU driver's "
                "behaviour."
            ),
            sharing_strategy="file_system",
            windows_apis=True,
            stands_for="windows",
            shown_in=("memory plot",),
        ),
        Profile(
            "macos",
            "spawn",
            "darwin",
            "macOS",
            imposes=(
                "spawn, the default on macOS since Python 3.8, torch's `file_system` sharing strategy, "
                "its only one there, and macOS's default limit of 256 open files a process (the soft "
                "`RLIMIT_NOFILE`, emulated on Linux: `ulimit -n`)."
            ),
            limits=(
                "An emulation on Linux cannot show macOS itself: "
                "shared memory without /dev/shm, Apple's libraries (Accelerate, Objective-C) in forked "
                "processes, or the resource tracker that torch leaks at exit on Python 3.12.2+. It keeps "
                "what Linux and macOS share: each spawned worker starts `torch_shm_manager`, which holds "
                "the worker's spawn sentinel open, so the DataLoader waits 5 s per worker at shutdown "
                "(on a Mac inferred from the same code path, not observed there)."
            ),
            sharing_strategy="file_system",
            confined=(("open_files", 256),),
        ),
    )
}
PROFILE_NAMES = tuple(PROFILES)
BASELINE = next(p.name for p in PROFILES.values() if p.baseline)  # what runs here by default


def shown_in(selection: str) -> tuple[str, ...]:
    """The names of the profiles in one of the site's selections, in the profiles' order."""
    return tuple(p.name for p in PROFILES.values() if selection in p.shown_in)


def linux_default(start_method: str) -> Profile:
    """The Linux profile of an interpreter whose default start method is `start_method`."""
    return next(p for p in PROFILES.values() if p.system == "linux" and p.start_method == start_method)


BY_START_METHOD = {
    method: tuple(p.name for p in PROFILES.values() if p.start_method == method) for method in START_METHODS
}


def named(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile '{name}' (one of {', '.join(PROFILE_NAMES)})") from None


def resolve(profile: Profile | str) -> Profile:
    """The profile itself, or the profile of that name."""
    return named(profile) if isinstance(profile, str) else profile


def unavailable(profile: Profile) -> str:
    """Why `profile` cannot run on this machine; "" when it can (natively, emulated or under Wine)."""
    system = platform.system().lower()
    if refused := profile.launcher.unavailable():  # asked once: under Wine it reads the environment
        return refused
    if profile.start_method not in multiprocessing.get_all_start_methods():
        return f"the {profile.start_method} start method is not available here (the {profile.name} profile)"
    here = SYSTEM_NAMES.get(system, system)
    if profile.stands_for and system != "linux":  # on the system it emulates, it would repeat that one
        return (
            f"the {profile.name} profile is emulated on Linux only; this is {here}, where the "
            f"{profile.stands_for} profile runs natively"
        )
    if not profile.runs_natively(system, profile.launcher.python_version()) and system != "linux":
        return f"the {profile.name} profile is emulated on Linux only; this is {here}"
    return ""


def native_profiles(environment: dict) -> set[str]:
    """The profiles that a results file's machine ran natively (from its recorded environment)."""
    system = environment.get("os", "")
    version = tuple(
        int(part) for part in str(environment.get("python", "0")).split(".")[:3] if part.isdigit()
    )
    return {p.name for p in PROFILES.values() if p.runs_natively(system, version)}
