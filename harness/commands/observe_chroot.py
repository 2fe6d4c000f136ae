"""`observe-chroot`: the cases run natively by another Python, the one of a Debian suite, in a chroot.

Debian's unstable suite (sid) ships Python 3.14, trixie a 3.13 from before CPython's forkserver fix
(3.13.5). As root on a Debian-family machine, each suite gets a minimal root under `.nox/`
(debootstrap, reused on the next call), a copy of this checkout, and a virtual environment made with
that suite's interpreter, with the project's dependencies and torch 2.13.0 from the package
registries. Then `reproduce` and `verify` run here, launching each script with that interpreter in
the root (`run --chroot ROOT`, harness/run/launch/chroot.py), under the one profile it runs natively
(no emulation on top); the results go to its own file in `results/` (linux-py3.14-torch2.13.0.json).
Without root, debootstrap or chroot it says so and exits 2; it never runs anything else instead.
"""

from __future__ import annotations

import argparse
import functools
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..run import mount_namespace
from . import EXIT_FAILED, EXIT_OK
from .arguments import EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
INSIDE = "/root/dataloader-pitfalls"  # the checkout's copy, in the chroot
VENV = "/opt/dlp-venv"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"  # this machine's trust store, for pip in the chroot
STEP_TIMEOUT_S = 3600
NOT_ROOT = "observe-chroot needs root (debootstrap, chroot, mounts): run it as root on a Debian-family system"


@dataclass(frozen=True)
class Suite:
    python: str  # the interpreter's command and Debian package, e.g. python3.14
    start_method: str  # its default on Linux: forkserver from 3.14, fork before

    @property
    def profile(self) -> str:
        """The profile it runs natively: the Linux one of its default start method."""
        from ..profiles import linux_default

        return linux_default(self.start_method).name


SUITES = {"sid": Suite("python3.14", "forkserver"), "trixie": Suite("python3.13", "fork")}


class StepError(Exception):
    """A step could not be done; the message says which and why."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "observe-chroot",
        help="run reproduce and verify natively with a Debian suite's Python, in a chroot (root only)",
    )
    parser.add_argument("suites", nargs="*", type=_suite, metavar="SUITE",
                        help=f"Debian suites: {', '.join(f'{s} ({v.python})' for s, v in SUITES.items())} "
                        "(default: both)")  # fmt: skip
    parser.add_argument(
        "--chroots", type=Path, default=ROOT / ".nox", help="where the chroots live (default: .nox)"
    )
    parser.set_defaults(handler=handle)


def _suite(name: str) -> str:
    if name not in SUITES:  # not argparse's choices: Python 3.11 checks an empty list against them
        raise argparse.ArgumentTypeError(
            f"invalid choice: '{name}' (choose from {', '.join(map(repr, SUITES))})"
        )
    return name


def refusal() -> str:
    """Why this machine cannot build and enter a chroot; "" when it can."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return NOT_ROOT
    for tool, package in (("debootstrap", "debootstrap"), ("chroot", "coreutils"), ("unshare", "util-linux")):
        if shutil.which(tool) is None:
            return f"observe-chroot needs {tool}: apt-get install {package} (a Debian-family machine)"
    return ""


def handle(args: argparse.Namespace, console: Console) -> int:
    refused = refusal()
    if refused:
        console.print(f"[red]error:[/] {escape(refused)}", soft_wrap=True)
        return EXIT_USAGE
    statuses = [
        _observe(name, args.chroots.resolve() / f"chroot-{name}", console)
        for name in dict.fromkeys(args.suites or SUITES)
    ]
    return EXIT_FAILED if EXIT_FAILED in statuses else EXIT_OK


def _observe(name: str, root: Path, console: Console) -> int:
    """Every step for one suite, each said before it starts and timed once done."""
    suite = SUITES[name]
    mismatched: list[str] = []  # the harness steps whose runs were not all as expected
    steps = [
        (f"a Debian {name} root with {suite.python}", functools.partial(_debootstrap, name, suite, root)),
        ("a copy of this checkout", functools.partial(_copy_checkout, root)),
        ("the project and torch 2.13.0 in a virtual environment", functools.partial(_venv, suite, root)),
        (f"reproduce under {suite.profile}", functools.partial(_harness, root, suite, mismatched, "broken")),
        (
            f"verify under {suite.profile}",
            functools.partial(_harness, root, suite, mismatched, "fixed", "--require-ok"),
        ),
    ]
    for number, (what, step) in enumerate(steps, 1):
        started = time.monotonic()
        console.print(f"[{name} {number}/{len(steps)}] {escape(what)} …")
        try:
            done = step()
        except StepError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
            return EXIT_FAILED
        console.print(f"      {escape(done)} ({time.monotonic() - started:.0f} s)")
    if mismatched:
        console.print(
            f"[red]{name}: not as expected in {' and '.join(mismatched)}[/] (listed above; the results "
            "file records them): correct the expectation in case.toml, or the case"
        )
        return EXIT_FAILED
    return EXIT_OK


def _run(
    command: list[str], what: str, capture: bool = True, accept=(0,), cwd: Path | None = None
) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(
            command, capture_output=capture, text=True, timeout=STEP_TIMEOUT_S, check=False, cwd=cwd
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StepError(f"{what}: {exc}") from None
    if done.returncode not in accept:
        tail = ((done.stderr or done.stdout or "") if capture else "(its output is above)").strip()[-2000:]
        raise StepError(f"{what} failed (exit {done.returncode}): {tail}")
    return done


def _debootstrap(name: str, suite: Suite, root: Path) -> str:
    if (root / "usr" / "bin" / suite.python).exists() and (root / ".dlp-ready").exists():
        return f"already in {root}"
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    packages = f"{suite.python},{suite.python}-venv,ca-certificates"
    _run(
        ["debootstrap", "--variant=minbase", f"--include={packages}", name, str(root), MIRROR], "debootstrap"
    )
    (root / ".dlp-ready").touch()
    return f"{_inside(root, [suite.python, '--version']).stdout.strip()} in {root}"


def _copy_checkout(root: Path) -> str:
    """The files git knows here (tracked, and new ones it does not ignore), as they are now."""
    listed = _run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"], "git"
    )
    target = root / INSIDE.lstrip("/")
    shutil.rmtree(target, ignore_errors=True)
    names = [n for n in listed.stdout.split("\0") if n and (ROOT / n).is_file()]
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    return f"{len(names)} files in {target}"


def _venv(suite: Suite, root: Path) -> str:
    pip = f"{VENV}/bin/python -m pip install --quiet"
    script = (
        f"test -x {VENV}/bin/python || {suite.python} -m venv {VENV}; "
        f"{pip} torch==2.13.0 -e '{INSIDE}[cases,native-stacks]'"
    )
    _inside(root, ["sh", "-c", script], capture=False)
    version = _inside(
        root,
        [f"{VENV}/bin/python", "-c", "import torch, sys; print(sys.version.split()[0], torch.__version__)"],
    )
    return f"Python and torch: {version.stdout.strip()}"


def _harness(root: Path, suite: Suite, mismatched: list[str], variant: str, *extra: str) -> str:
    """`run --chroot ROOT` of one variant: this harness runs each script with the root's interpreter
    (harness/run/launch/chroot.py) and records in that interpreter's results file. Runs not as
    expected (exit 1) are what this command is for: they are noted, and recorded."""
    package = __package__.split(".")[0]  # harness in a checkout, dataloader_pitfalls installed
    command = [sys.executable, "-m", package, "run", "--chroot", str(root), "--variant", variant,
               "--profile", suite.profile, *extra]  # fmt: skip
    done = _run(command, shlex.join(command), capture=False, accept=(0, EXIT_FAILED), cwd=ROOT)
    if done.returncode == EXIT_FAILED:
        mismatched.append(f"the {variant} variant")
        return "some runs not as expected (above)"
    return "every run as expected"


def _inside(root: Path, command: list[str], capture: bool = True, accept=(0,)) -> subprocess.CompletedProcess:
    """`command` in the chroot, in a mount namespace of its own: /proc, /sys and /dev (with
    /dev/shm, for multiprocessing) mounted, the network's name servers and this machine's trust
    store given, a clean environment."""
    mounts = [*mount_namespace.root_mounts(root), f"cp /etc/resolv.conf {root}/etc/resolv.conf"]
    env = ["env", "-i", "HOME=/root", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
           "PIP_DISABLE_PIP_VERSION_CHECK=1"]  # fmt: skip
    if Path(HOST_CA).is_file():
        mounts.append(
            f"touch {root}/etc/ssl/host-ca.crt && mount --bind -o ro {HOST_CA} {root}/etc/ssl/host-ca.crt"
        )
        env.append("PIP_CERT=/etc/ssl/host-ca.crt")
    entered = mount_namespace.entered(mounts, shlex.join(["chroot", str(root), *env, *command]))
    return _run(entered, shlex.join(command), capture, accept)
