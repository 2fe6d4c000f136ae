"""The script's own packages for the Windows binaries: the third-party modules a script imports
(harness/run/script_needs.py), the distributions that give them in this interpreter (the user's)
and what those require, each brought into the Windows environment at the version installed here,
as its `win_amd64` wheel (pip `--platform win_amd64 --only-binary=:all:`), once per version.

A distribution the Windows environment has already (torch, numpy: its own pinned versions, the
ones that run under Wine) is not brought again. A requirement that applies on Windows only (tqdm's
colorama) is not installed here: it is brought at the newest version its requirement allows. One
that has no Windows wheel, or that cannot be fetched, is the reason the run cannot happen: the run
is skipped with it, never run to fail. All of it within `deadline` (check's): the lock another
check holds, each fetch, the compiling.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.metadata as metadata
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock
from filelock import Timeout as LockTimeout
from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from .. import script_needs
from . import wine_env

FOLDER = "packages"
DONE = "done.json"
# One package's fetch at most (a stalled index must not hold `check` for long: pip gives up on a
# connection after PIP_TIMEOUT_S, retried once).
FETCH_TIMEOUT_S = 300
PIP_TIMEOUT_S = 30
COMPILE_TIMEOUT_S = 300  # a package's bytecode, by the Windows interpreter
# A version found to have no Windows wheel is asked for again after this long (one may be uploaded).
NO_WHEEL_KEPT_S = 86400
NO_WHEEL = ("No matching distribution found", "Could not find a version that satisfies")


@dataclass(frozen=True)
class Wanted:
    """A distribution to bring, at the version installed here, and the module that asked for it;
    or, one required on Windows only (`version` ""), what its requirement allows (`spec`) and
    which distribution requires it (`required_by`)."""

    name: str
    version: str
    for_module: str
    spec: str = ""
    required_by: str = ""

    @property
    def folder_name(self) -> str:
        return f"{canonicalize_name(self.name)}-{self.version}"

    @property
    def pip_requirement(self) -> str:
        return f"{self.name}=={self.version}" if self.version else f"{self.name}{self.spec}"

    def __str__(self) -> str:
        if self.version:
            return f"{self.name} {self.version}"
        return (
            f"{self.name}{self.spec} (required on Windows by {self.required_by}, which {self.for_module} "
            "needs; not installed here)"
        )


class Unavailable(Exception):
    """A package the script needs cannot be had for the Windows binaries; the message says which."""


def _windows_markers(python: str) -> dict[str, str]:
    """The environment markers of the Windows interpreter (to read which requirements apply)."""
    markers = default_environment()
    major_minor = ".".join(python.split(".")[:2])
    markers.update(
        sys_platform="win32", platform_system="Windows", os_name="nt", platform_machine="AMD64",
        python_version=major_minor, python_full_version=python, implementation_name="cpython",
        platform_python_implementation="CPython",
    )  # fmt: skip
    return markers


def in_environment(env_root: Path) -> set[str]:
    """The distributions the Windows environment has (its wheels), by normalised name."""
    return {canonicalize_name(p.name.split("-")[0]) for p in (env_root / "site").glob("*.dist-info")}


def modules_in_environment(env_root: Path) -> set[str]:
    """The top-level modules the Windows environment's wheels give (cv2, PIL, torch …)."""
    site = env_root / "site"
    names = {p.name.split(".")[0] for p in site.iterdir()} if site.is_dir() else set()
    return {name for name in names if name.isidentifier()}


def wanted(
    script: Path, have: set[str], python: str, have_modules: frozenset[str] = frozenset()
) -> list[Wanted]:
    """The distributions of this interpreter that the script's imports need and the Windows
    environment lacks (by distribution, or a module it has under another distribution's name:
    cv2 from opencv-python here, opencv-python-headless there), with what they require (that
    applies on Windows) and this interpreter has."""
    by_module = _distributions_by_module()
    markers = _windows_markers(python)
    found: dict[str, Wanted] = {}
    todo = [
        (Requirement(dist), module, "")
        for module in script_needs.third_party_imports(script)
        if module not in have_modules
        for dist in by_module.get(module, ())
    ]
    while todo:
        requirement, module, required_by = todo.pop()
        key = canonicalize_name(requirement.name)
        if key in have or key in found:
            continue
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:  # required on Windows only: brought at what it allows
            spec = str(requirement.specifier)
            found[key] = Wanted(requirement.name, "", module, spec, required_by)
            continue
        found[key] = Wanted(dist.metadata["Name"], dist.version, module)
        todo += [(req, module, dist.metadata["Name"]) for req in _windows_requirements(dist, markers)]
    return sorted(found.values(), key=lambda w: w.folder_name)


@functools.cache
def _distributions_by_module() -> dict[str, list[str]]:
    """This interpreter's installed distributions by the top-level modules they give (read once:
    a matrix asks for every run under Wine)."""
    return metadata.packages_distributions()


def _requirements(dist: metadata.Distribution, markers: dict[str, str]) -> list[str]:
    return [requirement.name for requirement in _windows_requirements(dist, markers)]


def _windows_requirements(dist: metadata.Distribution, markers: dict[str, str]) -> list[Requirement]:
    """What the distribution requires where `markers` hold (no extra asked for)."""
    found = []
    for text in dist.requires or ():
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({**markers, "extra": ""}):
            found.append(requirement)
    return found


def prepare(script: Path, env_root: Path | None = None, deadline: float | None = None) -> tuple[str, ...]:
    """The folders (one per distribution) that give the Windows binaries the script's packages,
    fetched where not yet kept, by `deadline` (time.monotonic(); None: each step's own limit).
    Raises Unavailable naming the package that cannot be had, or what the deadline cut short."""
    env_root = env_root or wine_env.root()
    python = wine_env.described(env_root).get("python", "3.13")
    needed = wanted(script, in_environment(env_root), python, frozenset(modules_in_environment(env_root)))
    if not needed:
        return ()
    store = env_root / FOLDER
    store.mkdir(exist_ok=True)
    clock = _Clock(deadline)
    try:  # runs in parallel fetch a version once
        with FileLock(store / ".lock", timeout=clock.left(None)):
            return tuple(str(_kept(store, package, python, env_root, clock)) for package in needed)
    except LockTimeout:
        raise Unavailable(
            f"check's deadline came while another run was preparing the script's packages for Windows "
            f"(waited {clock.spent():.0f} s for its lock, {store / '.lock'})"
        ) from None


@dataclass
class _Clock:
    """The time left to `deadline` (time.monotonic(); None: none), for each step's own limit."""

    deadline: float | None
    started: float = dataclasses.field(default_factory=time.monotonic)

    def left(self, limit: float | None) -> float:
        """Seconds a step may take: its own `limit`, or less where the deadline comes first (-1,
        FileLock's wait for ever, where neither bounds it). Raises Unavailable once it has come."""
        if self.deadline is None:
            return -1 if limit is None else limit
        left = self.deadline - time.monotonic()
        if left <= 0:
            spent = f"{self.spent():.0f} s"
            raise Unavailable(
                f"check's deadline came while preparing the script's packages for Windows ({spent})"
            )
        return left if limit is None else min(limit, left)

    def spent(self) -> float:
        return time.monotonic() - self.started


def _kept(store: Path, package: Wanted, python: str, env_root: Path, clock: _Clock | None = None) -> Path:
    clock = clock or _Clock(None)
    if not package.version:
        return _kept_allowed(store, package, python, env_root, clock)
    target = store / package.folder_name
    if (target / DONE).is_file():
        return target
    refused = store / f"{package.folder_name}.no-wheel"
    if refused.is_file() and time.time() - refused.stat().st_mtime < NO_WHEEL_KEPT_S:
        raise Unavailable(refused.read_text(encoding="utf-8").strip())
    partial = store / f"{package.folder_name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    _fetch(package, partial, python, refused, clock)
    _finish(partial, package.name, package.version, env_root, clock)
    partial.rename(target)
    return target


def _kept_allowed(store: Path, package: Wanted, python: str, env_root: Path, clock: _Clock) -> Path:
    """A requirement not installed here: a kept version it allows, else the newest it allows."""
    allowed = SpecifierSet(package.spec)
    for done in sorted(store.glob(f"{canonicalize_name(package.name)}-*/{DONE}")):
        with contextlib.suppress(OSError, ValueError, KeyError):
            if allowed.contains(json.loads(done.read_text(encoding="utf-8"))["version"], prereleases=True):
                return done.parent
    partial = store / f"{canonicalize_name(package.name)}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    _fetch(package, partial, python, None, clock)
    version = _fetched_version(partial, package)
    target = store / f"{canonicalize_name(package.name)}-{version}"
    if (target / DONE).is_file():
        shutil.rmtree(partial, ignore_errors=True)
        return target
    _finish(partial, package.name, version, env_root, clock)
    partial.rename(target)
    return target


def _fetched_version(folder: Path, package: Wanted) -> str:
    for info in folder.glob("*.dist-info"):
        name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
        if canonicalize_name(name) == canonicalize_name(package.name):
            return version
    raise Unavailable(f"could not fetch {package} for Windows: pip installed no {package.name}")


def _finish(partial: Path, name: str, version: str, env_root: Path, clock: _Clock) -> None:
    _compile(partial, env_root, clock)
    (partial / DONE).write_text(json.dumps({"name": name, "version": version}) + "\n")


def _fetch(
    package: Wanted, partial: Path, python: str, refused: Path | None, clock: _Clock | None = None
) -> None:
    """pip install of the package's Windows wheel, without its requirements (each is brought on
    its own, at the version installed here); within the clock's time."""
    clock = clock or _Clock(None)
    major_minor = ".".join(python.split(".")[:2])
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-requires-python",
        "--timeout", str(PIP_TIMEOUT_S), "--retries", "1",
        "--target", str(partial), "--platform", "win_amd64", "--python-version", major_minor,
        "--only-binary=:all:", package.pip_requirement,
    ]  # fmt: skip
    limit = clock.left(FETCH_TIMEOUT_S)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        shutil.rmtree(partial, ignore_errors=True)
        cut = "check's deadline came" if limit < FETCH_TIMEOUT_S else "it took too long"
        raise Unavailable(
            f"could not fetch {package} for Windows: {cut} after {limit:.0f} s of fetching it "
            "(what was fetched before is kept for the next check)"
        ) from None
    except OSError as exc:
        raise Unavailable(f"could not fetch {package} for Windows: {exc}") from None
    if done.returncode == 0:
        return
    said = (done.stderr or done.stdout).strip()
    shutil.rmtree(partial, ignore_errors=True)
    if any(text in said for text in NO_WHEEL):
        reason = (
            f"{package} (imported as {package.for_module}) has no Windows wheel for CPython "
            f"{major_minor} (win_amd64)"
        )
        if refused is not None:
            refused.write_text(reason + "\n", encoding="utf-8")
        raise Unavailable(reason)
    last = said.splitlines()[-1] if said else f"exit {done.returncode}"
    raise Unavailable(f"could not fetch {package} for Windows: {last}")


def _compile(folder: Path, env_root: Path, clock: _Clock | None = None) -> None:
    """The package's bytecode, made once by the Windows interpreter (where bytecode is not written,
    as in CI, each process of a run would compile the package again)."""
    limit = (clock or _Clock(None)).left(COMPILE_TIMEOUT_S)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):  # it still imports, only slower
        wine_env.run_interpreter(["-m", "compileall", "-q", wine_env.windows_path(folder)], env_root, limit)
