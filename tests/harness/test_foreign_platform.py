"""The harness where Windows' missing pieces are taken away (tests/foreign/windows_harness.py):
every command works, fork and forkserver are skipped with the reason, a hang is stopped with its
stacks (asked for by trigger file: there is no SIGUSR1), output survives a cp1252 pipe, and
nothing of the runs is left. An emulation on Linux, not Windows: what it cannot show is listed in
that script's docstring."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SCRIPTS_DIR

pytestmark = [pytest.mark.slow, pytest.mark.linux]
WINDOWS_HARNESS = ROOT / "tests" / "foreign" / "windows_harness.py"


def windows_harness(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """The harness as on Windows, its stdout a cp1252 pipe; the output decoded as the bytes it wrote."""
    completed = subprocess.run(
        [sys.executable, str(WINDOWS_HARNESS), *args],
        cwd=ROOT,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "cp1252", "COLUMNS": "200"},  # no line wrapped mid-phrase
    )
    completed.stdout = completed.stdout.decode("utf-8")
    completed.stderr = completed.stderr.decode("utf-8")
    return completed


def test_list_and_lint_work():
    listed = windows_harness("list")
    assert listed.returncode == 0, listed.stderr
    assert "01_missing_main_guard" in listed.stdout
    linted = windows_harness("lint", "cases/01_missing_main_guard/broken.py")
    assert linted.returncode == 1, linted.stderr
    assert "DLP001" in linted.stdout


def test_run_skips_fork_and_forkserver_and_runs_the_spawn_profiles(contained, tmp_path):
    results = tmp_path / "windows.json"
    completed = windows_harness("run", "01", "--results", str(results))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "→ crash (as expected)" in completed.stdout, "the arrow survives a cp1252 pipe as UTF-8"
    by_profile = {(r["variant"], r["profile"]): r for r in json.loads(results.read_text())["results"]}
    for variant in ("broken", "fixed"):
        for profile, method in (("linux", "fork"), ("linux-3.14", "forkserver")):
            skipped = by_profile[(variant, profile)]
            assert skipped["outcome"] == "skipped"
            assert f"the {method} start method is not available here" in skipped["reason"]
    assert by_profile[("broken", "windows")]["outcome"] == "crash"
    assert "bootstrapping phase" in by_profile[("broken", "windows")]["signature"]
    assert by_profile[("fixed", "windows")]["outcome"] == "ok"
    macos = by_profile[("fixed", "macos")]
    assert macos["outcome"] == "skipped" and "the macos profile is emulated on Linux only" in macos["reason"]
    emulated = by_profile[("broken", "windows-emulated")]
    assert emulated["outcome"] == "skipped" and "emulated on Linux only" in emulated["reason"]


def test_check_diagnoses_a_script(contained):
    completed = windows_harness("check", "cases/03_lambda_collate/broken.py", "--json")
    assert completed.returncode == 1, completed.stderr
    report = json.loads(completed.stdout)
    assert {r["profile"]: r["outcome"] for r in report["runs"]} == {
        "linux": "skipped",
        "linux-3.14": "skipped",
        "windows": "crash",
        "windows-emulated": "skipped",
        "macos": "skipped",  # emulated on Linux only
    }
    assert report["pitfalls"][0]["case"] == "03_lambda_collate"


def test_a_hang_is_stopped_with_its_stacks(contained):
    completed = windows_harness(
        "script", str(SCRIPTS_DIR / "worker_hangs.py"), "--profile", "windows", "--timeout", "20"
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "windows    hang" in completed.stdout
    assert "in __getitem__ (worker_hangs.py" in completed.stdout, "the workers' stacks were dumped"
