"""The script's own packages for the Windows binaries: the third-party modules a script imports
(harness/run/script_needs.py), the distributions that give them in this interpreter (the user's)
and what those require, each brought into the Windows environment at the version installed here,
as its `win_amd64` wheel (pip `--platform win_amd64 --only-binary=:all:`), once per version.

A distribution the Windows environment has already (torch, numpy: its own pinned versions, the
ones that run under Wine) is not brought again. One that has no Windows wheel, or that cannot be
fetched, is the reason the run cannot happen: the run is skipped with it, never run to fail.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata as metadata
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock
from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement

from .. import script_needs
from . import wine_env

FOLDER = "packages"
DONE = "done.json"
# One package's fetch at most (a stalled index must not hold `check` for long: pip gives up on a
# connection after PIP_TIMEOUT_S, retried once).
FETCH_TIMEOUT_S = 300
PIP_TIMEOUT_S = 30
# A version found to have no Windows wheel is asked for again after this long (one may be uploaded).
NO_WHEEL_KEPT_S = 86400
NO_WHEEL = ("No matching distribution found", "Could not find a version that satisfies")


@dataclass(frozen=True)
class Wanted:
    """A distribution to bring, at the version installed here, and the module that asked for it."""

    name: str
    version: str
    for_module: str

    @property
    def folder_name(self) -> str:
        return f"{_normal(self.name)}-{self.version}"


class Unavailable(Exception):
    """A package the script needs cannot be had for the Windows binaries; the message says which."""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


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
    return {_normal(p.name.split("-")[0]) for p in (env_root / "site").glob("*.dist-info")}


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
        (dist, module)
        for module in script_needs.third_party_imports(script)
        if module not in have_modules
        for dist in by_module.get(module, ())
    ]
    while todo:
        name, module = todo.pop()
        key = _normal(name)
        if key in have or key in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # required but not installed here: the script cannot use it here either
        found[key] = Wanted(dist.metadata["Name"], dist.version, module)
        todo += [(req, module) for req in _requirements(dist, markers)]
    return sorted(found.values(), key=lambda w: w.folder_name)


@functools.cache
def _distributions_by_module() -> dict[str, list[str]]:
    """This interpreter's installed distributions by the top-level modules they give (read once:
    a matrix asks for every run under Wine)."""
    return metadata.packages_distributions()


def _requirements(dist: metadata.Distribution, markers: dict[str, str]) -> list[str]:
    names = []
    for text in dist.requires or ():
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({**markers, "extra": ""}):
            names.append(requirement.name)
    return names


def prepare(script: Path, env_root: Path | None = None) -> tuple[str, ...]:
    """The folders (one per distribution) that give the Windows binaries the script's packages,
    fetched where not yet kept. Raises Unavailable naming the package that cannot be had."""
    env_root = env_root or wine_env.root()
    python = wine_env.described(env_root).get("python", "3.13")
    needed = wanted(script, in_environment(env_root), python, frozenset(modules_in_environment(env_root)))
    if not needed:
        return ()
    store = env_root / FOLDER
    store.mkdir(exist_ok=True)
    with FileLock(store / ".lock"):  # runs in parallel fetch a version once
        return tuple(str(_kept(store, package, python, env_root)) for package in needed)


def _kept(store: Path, package: Wanted, python: str, env_root: Path) -> Path:
    target = store / package.folder_name
    if (target / DONE).is_file():
        return target
    refused = store / f"{package.folder_name}.no-wheel"
    if refused.is_file() and time.time() - refused.stat().st_mtime < NO_WHEEL_KEPT_S:
        raise Unavailable(refused.read_text(encoding="utf-8").strip())
    partial = store / f"{package.folder_name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    _fetch(package, partial, python, refused)
    _compile(partial, env_root)
    (partial / DONE).write_text(json.dumps({"name": package.name, "version": package.version}) + "\n")
    partial.rename(target)
    return target


def _fetch(package: Wanted, partial: Path, python: str, refused: Path) -> None:
    """pip install of the package's Windows wheel, without its requirements (each is brought on
    its own, at the version installed here)."""
    major_minor = ".".join(python.split(".")[:2])
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-requires-python",
        "--timeout", str(PIP_TIMEOUT_S), "--retries", "1",
        "--target", str(partial), "--platform", "win_amd64", "--python-version", major_minor,
        "--only-binary=:all:", f"{package.name}=={package.version}",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"could not fetch {package.name} {package.version} for Windows: {exc}") from None
    if done.returncode == 0:
        return
    said = (done.stderr or done.stdout).strip()
    shutil.rmtree(partial, ignore_errors=True)
    if any(text in said for text in NO_WHEEL):
        reason = (
            f"{package.name} {package.version} (imported as {package.for_module}) has no Windows wheel "
            f"for CPython {major_minor} (win_amd64)"
        )
        refused.write_text(reason + "\n", encoding="utf-8")
        raise Unavailable(reason)
    last = said.splitlines()[-1] if said else f"exit {done.returncode}"
    raise Unavailable(f"could not fetch {package.name} {package.version} for Windows: {last}")


def _compile(folder: Path, env_root: Path) -> None:
    """The package's bytecode, made once by the Windows interpreter (where bytecode is not written,
    as in CI, each process of a run would compile the package again)."""
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):  # it still imports, only slower
        wine_env.run_interpreter(["-m", "compileall", "-q", wine_env.windows_path(folder)], env_root)
