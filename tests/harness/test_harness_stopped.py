"""Nothing outlives the harness: stopped by SIGTERM or SIGHUP (an orderly ending, as Ctrl-C), or
killed by SIGKILL (its watchdog ends the runs), its runs end within seconds, their /dev/shm entries
go, and the results file is the previous one untouched. The same for a pytest run killed outright."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from harness.cases import VARIANTS
from harness.profiles import START_METHODS
from harness.results import ResultsFile, save
from harness.run import shm_leftovers
from tests.conftest import ROOT, TESTS_DIR, run_processes_alive

pytestmark = [pytest.mark.slow, pytest.mark.linux]

FAULTS = TESTS_DIR / "faults"
# The script, and the lines its run has printed once it is going: its workers ignore termination,
# its grandchild escaped, its batches are kept in /dev/shm and its helpers gone. Waited for by what
# the run printed, not by a pause (a pause was once too short on a busy machine).
SCRIPTS = {
    "ignores SIGTERM, with workers": (FAULTS / "ignores_sigterm.py", ("ignores termination",) * 3),
    "escapes into its own session": (FAULTS / "escapes_and_hangs.py", ("escaped",)),
    "workers holding /dev/shm": (FAULTS / "leaves_shm.py", ("kept 8 batches",)),
}
SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGHUP": signal.SIGHUP, "SIGKILL": signal.SIGKILL}
GONE_WITHIN_S = 10.0
CASE_TOML = 'title = "a fault script"\nsummary = "hangs"\ntags = []\ntimeout = 120\n' + "".join(
    f'[expect.{variant}.{method}]\noutcome = "{"hang" if variant == "broken" else "ok"}"\n'
    for variant in VARIANTS
    for method in START_METHODS
)
STOP_TIMES = ROOT / "build" / "test-artifacts" / "harness-stopped.json"


def fault_case(root: Path, script: Path) -> Path:
    folder = root / "cases" / "01_fault"
    folder.mkdir(parents=True)
    shutil.copy(script, folder / "broken.py")
    (folder / "fixed.py").write_text("print('fine')\n")
    (folder / "case.toml").write_text(CASE_TOML)
    return folder.parent


def wait_for_the_run(script: Path, printed: tuple[str, ...], timeout_s: float = 60) -> list[psutil.Process]:
    """The run's processes once it is going: once its output (output.txt in the run's folder, the
    script's working directory) holds each line of `printed`, as many times as it is listed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        alive = run_processes_alive()
        output = _output_of(script, alive)
        if all(output.count(line) >= printed.count(line) for line in printed):
            return run_processes_alive()
        time.sleep(0.2)
    raise AssertionError(f"{script.name}: the run did not print {printed} within {timeout_s:g} s")


def _output_of(script: Path, alive: list[psutil.Process]) -> str:
    for process in alive:
        try:
            if script.name in " ".join(process.cmdline()):
                return (Path(process.cwd()) / "output.txt").read_text(errors="replace")
        except (psutil.Error, OSError):
            continue
    return ""


def what_the_run_holds(running: list[psutil.Process]) -> set[str]:
    """The /dev/shm entries the run's processes hold, and PyTorch's segments named after them."""
    held = set().union(*(shm_leftovers.held_by(p.pid) for p in running))
    named = {name for name in shm_leftovers.entries() for p in running if name.startswith(f"torch_{p.pid}_")}
    return held | named


def seconds_until_gone() -> float:
    started = time.monotonic()
    while run_processes_alive() and time.monotonic() - started < GONE_WITHIN_S + 5:
        time.sleep(0.05)
    return time.monotonic() - started


def record(label: str, seconds: float) -> None:
    STOP_TIMES.parent.mkdir(parents=True, exist_ok=True)
    times = json.loads(STOP_TIMES.read_text()) if STOP_TIMES.exists() else {}
    STOP_TIMES.write_text(json.dumps(times | {label: round(seconds, 2)}, indent=2, sort_keys=True))


@pytest.mark.parametrize("signal_name", SIGNALS)
@pytest.mark.parametrize("what", SCRIPTS)
def test_a_stopped_harness_leaves_nothing_of_its_runs(tmp_path, what, signal_name):
    results = tmp_path / "results.json"
    save(results, ResultsFile(environment={"note": "previous results, not to be touched"}, results=[]))
    previous = results.read_text()
    script, printed = SCRIPTS[what]
    cases = fault_case(tmp_path, script)
    options = ["--variant", "broken", "--profile", "linux", "--results", str(results)]
    harness = subprocess.Popen(
        [sys.executable, "-m", "harness", "--cases-dir", str(cases), "run", "1", *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = wait_for_the_run(Path("broken.py"), printed)
    held = what_the_run_holds(running)
    harness.send_signal(SIGNALS[signal_name])
    gone_after = seconds_until_gone()
    _, stderr = harness.communicate(timeout=30)
    record(f"{signal_name}, {what}", gone_after)

    assert run_processes_alive() == [], f"{what}: alive {gone_after:.1f} s after {signal_name}"
    assert gone_after < GONE_WITHIN_S
    assert held & shm_leftovers.entries() == set(), "the run's /dev/shm entries are removed"
    assert results.read_text() == previous
    if signal_name == "SIGKILL":
        assert harness.returncode == -signal.SIGKILL
    else:
        assert harness.returncode == 128 + SIGNALS[signal_name]
        assert f"stopped by {signal_name}: every run was stopped; no results were recorded" in stderr
        assert "broken.py under linux: " in stderr and "process(es) in" in stderr, stderr
    if what == "workers holding /dev/shm":
        assert held, "the script held shared memory when it was stopped"


KILLED_PYTEST = """
from pathlib import Path
from harness import verdict
from harness.run.settings import RunSettings

def test_hangs():
    verdict.reach(Path({script!r}), "linux", RunSettings(timeout_s=120), case="fault", variant="hang")
"""


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGKILL"])
def test_a_test_run_killed_by_a_timeout_leaves_nothing(tmp_path, signal_name):
    """`timeout` ends a job with SIGTERM, then SIGKILL: pytest dies without cleaning up."""
    test_file = tmp_path / "test_hangs.py"
    test_file.write_text(KILLED_PYTEST.format(script=str(FAULTS / "ignores_sigterm.py")))
    pytest_run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=ROOT,  # where `harness` is importable, as in a checkout
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_the_run(FAULTS / "ignores_sigterm.py", SCRIPTS["ignores SIGTERM, with workers"][1])
    pytest_run.send_signal(SIGNALS[signal_name])
    gone_after = seconds_until_gone()
    pytest_run.wait(timeout=30)
    record(f"{signal_name}, a pytest run", gone_after)
    assert run_processes_alive() == [] and gone_after < GONE_WITHIN_S
