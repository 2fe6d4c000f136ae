"""Shared fixtures and helpers: the catalog, the whole case matrix run once, the harness as a
command, and the checks that a test's runs left nothing behind.

A test judges only the runs it started: every process this test session starts carries
DLP_TEST_SESSION in its environment, and the session's temporary folder is its own, so a second
test suite on the same machine is neither seen nor disturbed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from harness.cases import discover
from harness.run import processes, shm_leftovers
from harness.scheduler import matrix_pass

ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = ROOT / "tests"
SCRIPTS_DIR = TESTS_DIR / "scripts"
OUTPUTS_DIR = TESTS_DIR / "outputs"
JOBS = max(2, os.cpu_count() or 1)
# The matrix waits more than it computes (idle limits, sleeps, stacks): twice the CPUs keep them busy.
MATRIX_JOBS = 2 * JOBS
SESSION_VARIABLE = "DLP_TEST_SESSION"

# Set at import, before any test starts a process: children inherit both. A pytest-xdist worker
# inherits the controller's and adds its own name, so that no worker sees another's processes.
os.environ.setdefault(SESSION_VARIABLE, uuid.uuid4().hex)
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if XDIST_WORKER and not os.environ[SESSION_VARIABLE].endswith(f"-{XDIST_WORKER}"):
    os.environ[SESSION_VARIABLE] += f"-{XDIST_WORKER}"
SESSION = os.environ[SESSION_VARIABLE]
# Beside the controller's folder, not inside it: a forkserver's socket path must stay under 108 bytes.
os.environ.setdefault("DLP_TESTS_TMP_BASE", tempfile.gettempdir())
SESSION_TMP = Path(
    tempfile.mkdtemp(prefix=f"dlp-tests-{SESSION[:8]}{XDIST_WORKER}-", dir=os.environ["DLP_TESTS_TMP_BASE"])
)
os.environ["TMPDIR"] = str(SESSION_TMP)
tempfile.tempdir = str(SESSION_TMP)
# The pass whose matrix the tests read: nox's (one per `nox` invocation), else this session's,
# shared by its xdist workers (they inherit the controller's variable).
os.environ.setdefault(matrix_pass.PASS_VARIABLE, str(SESSION_TMP / "matrix-pass"))


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(SESSION_TMP, ignore_errors=True)


MATRIX_FIXTURES = {"matrix", "matrix_results", "matrix_reruns"}
E2E = "tests/e2e/"  # the tests that read the matrix, and only they, live here


# DLP_MATRIX_AHEAD=1: the matrix is observed from the start of the session, in a process of its
# own, beside the other tiers, instead of when tests/e2e (collected after them) first asks for it.
# Off by default: with the matrix beside them, 11 of 11 fault tests failed (a run's /dev/shm
# leftovers and processes, judged while another harness ran) and `bench --quick` passed its 600 s.
AHEAD_VARIABLE = "DLP_MATRIX_AHEAD"


def pytest_configure(config):
    """With DLP_MATRIX_AHEAD=1, the process that dispatches the tests starts the matrix once a test
    that reads it is collected (under pytest-xdist, the controller)."""
    if not XDIST_WORKER and os.environ.get(AHEAD_VARIABLE) == "1":
        config.pluginmanager.register(_MatrixEarly(), "dlp-matrix-early")


class _MatrixEarly:
    """Observes the pass's matrix in a process of its own (python -m harness.scheduler.matrix_pass)
    with a test session id of its own, so that no test sees its runs and no test's clean-up ends
    them; the `matrix` fixture reads it from the pass folder, waiting under its lock while it is
    being made (harness/scheduler/matrix_pass.py)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def start(self, nodeids) -> None:
        if self.process is not None or not any(nodeid.startswith(E2E) for nodeid in nodeids):
            return
        folder = matrix_pass.pass_folder()
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "early.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.scheduler.matrix_pass", str(MATRIX_JOBS)],
                cwd=ROOT,
                env={**os.environ, SESSION_VARIABLE: f"{SESSION}-matrix"},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started = time.monotonic()  # its lock taken before any test can ask for the matrix
        while not (folder / "matrix.lock").exists() and time.monotonic() - started < 30:
            time.sleep(0.1)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        self.start(item.nodeid for item in session.items)  # without xdist (the controller has none)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        self.start(ids)

    def pytest_sessionfinish(self, session, exitstatus):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # interrupted before the matrix's readers came
            self.process.wait()


def pytest_collection_modifyitems(config, items):
    """Whatever reads the case matrix, or drives a browser, is slow: no test can forget to say so.
    The case matrix as stated in the tests was observed on Linux; tests marked `linux` (fork, POSIX
    signals and sessions, /proc, /dev/shm) are skipped elsewhere, with the reason."""
    not_linux = pytest.mark.skip(
        reason=f"needs Linux (fork, POSIX signals, /proc, /dev/shm); this is {sys.platform}"
    )
    for item in items:
        reads_matrix = bool(MATRIX_FIXTURES & set(getattr(item, "fixturenames", ())))
        if reads_matrix and not item.nodeid.startswith(E2E):
            raise pytest.UsageError(f"{item.nodeid} reads the case matrix: its place is {E2E}")
        if reads_matrix:
            item.add_marker(pytest.mark.linux)
        if reads_matrix or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("linux") and not sys.platform.startswith("linux"):
            item.add_marker(not_linux)


@pytest.fixture(scope="session")
def catalog():
    return discover()


@pytest.fixture(scope="session")
def matrix(catalog):
    """Every case × variant × profile observed once for the whole pass (harness/scheduler/matrix_pass.py):
    by this session, or read from the pass folder where another process of the pass (a pytest
    worker, or `nox -s tests` before `reproduce`) observed it."""
    return matrix_pass.shared(catalog, MATRIX_JOBS, matrix_pass.pass_folder())


@pytest.fixture(scope="session")
def matrix_results(matrix):
    return matrix.results


@pytest.fixture(scope="session")
def matrix_reruns(matrix):
    """The second run of each linux (case, variant), in the folder of its first run."""
    return matrix.reruns


def needs_wine() -> None:
    """Skips the test where Wine or the Windows environment is missing; fails instead with
    DLP_REQUIRE_WINE=1 (CI), where their absence is a defect of the setup."""
    from harness.run.launch import wine_env as wine

    missing = wine.unavailable()
    if missing and os.environ.get("DLP_REQUIRE_WINE") == "1":
        pytest.fail(f"DLP_REQUIRE_WINE=1 but {missing}")
    if missing:
        pytest.skip(missing)


def harness(*args: str, timeout: float = 300, **options) -> subprocess.CompletedProcess:
    """`python -m harness ARGS` from the repository root, its output captured as text; from another
    `cwd` (a user's project) `python -m dataloader_pitfalls ARGS`, the name the tool is installed
    under (the test environment installs it), as a user runs it there."""
    options.setdefault("cwd", ROOT)
    module = "harness" if Path(options["cwd"]).resolve() == ROOT else "dataloader_pitfalls"
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )


def one_line_error(completed: subprocess.CompletedProcess) -> str:
    """The one line of a bad-input error (exit 2, no traceback)."""
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    return lines[0]


def _ours(process: psutil.Process) -> bool:
    try:
        environ = processes.environ(process)
    except (psutil.Error, OSError):
        return False
    return processes.RUN_ID_VARIABLE in environ and environ.get(SESSION_VARIABLE) == SESSION


def run_processes_alive() -> list[psutil.Process]:
    """The processes of runs that this test session started and that are still alive."""
    ours = [p for p in psutil.process_iter() if p.pid != os.getpid() and _ours(p)]
    return [p for p in ours if processes.alive(p)]  # a zombie whose threads still run is alive


def run_dirs() -> set[str]:
    return {p.name for p in SESSION_TMP.glob("dlp-run-*")}


@pytest.fixture
def contained():
    """Asserts afterwards: no process of the test's runs is alive, no run folder of them is left,
    and no /dev/shm entry that they made or held is left (watched while the test ran)."""
    watch = shm_leftovers.ShmWatch()
    dirs_before = run_dirs()
    stop = threading.Event()

    def follow() -> None:
        while not stop.wait(0.1):
            watch.poll([p.pid for p in psutil.process_iter() if _ours(p)])

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    yield
    stop.set()
    follower.join()
    time.sleep(0.3)
    assert run_processes_alive() == []
    assert run_dirs() <= dirs_before
    assert watch.leftovers() == []
