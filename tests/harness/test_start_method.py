"""The harness imposes each profile's start method on the script and on its DataLoader workers."""

from __future__ import annotations

import json
import os

import pytest

from harness import profiles, scheduler, verdict
from harness.profiles import PROFILES
from harness.run.runner import run_script
from harness.run.settings import RunSettings
from tests.conftest import SCRIPTS_DIR, needs_wine

pytestmark = [pytest.mark.slow, pytest.mark.linux]


@pytest.mark.parametrize("profile", PROFILES)
def test_start_method_reaches_parent_and_workers(profile):
    if PROFILES[profile].launcher.name == "wine":
        needs_wine()
    method = PROFILES[profile].start_method
    observed = run_script(SCRIPTS_DIR / "probe_start_method.py", PROFILES[profile], RunSettings(timeout_s=60))
    assert observed.returncode == 0, observed.output
    # Python's resource tracker may print a warning after the report: take the report's own line.
    reports = [line for line in observed.output.splitlines() if line.startswith('{"parent"')]
    assert len(reports) == 1, observed.output
    assert json.loads(reports[0]) == {"parent": method, "workers": [method]}


def test_script_runs_as_main_from_its_own_path(tmp_path):
    script = tmp_path / "where.py"
    script.write_text(
        "import json, os, sys, tempfile\n"
        "print(json.dumps({'name': __name__, 'path0': sys.path[0], 'cwd': os.getcwd(),\n"
        "                  'tmp': tempfile.gettempdir()}))\n"
    )
    observed = run_script(script, PROFILES["windows-emulated"], RunSettings(timeout_s=30))
    report = json.loads(observed.output.strip().splitlines()[-1])
    assert report["name"] == "__main__"
    assert report["path0"] == str(tmp_path)
    assert report["cwd"] != str(tmp_path), "each run gets its own temporary working directory"
    assert report["tmp"] == os.path.join(report["cwd"], "tmp"), "and its own temporary directory"


def test_parallel_runs_of_one_script_never_meet_in_the_temporary_directory(tmp_path):
    """A script that opens a fixed file under tempfile.gettempdir() exclusively, as an HDF5 file
    opened for writing locks it: run under every profile at once, no run sees another's file."""
    script = tmp_path / "fixed_temp_file.py"
    script.write_text(
        "import os, tempfile, time\n"
        "path = os.path.join(tempfile.gettempdir(), 'cache.h5')\n"
        "fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # FileExistsError if another run has it\n"
        "time.sleep(2)\n"
        "os.close(fd)\n"
    )
    runnable = [name for name, profile in PROFILES.items() if not profiles.unavailable(profile)]
    results = scheduler.run_all(
        runnable,
        4,
        run=lambda p: verdict.reach(script, p, RunSettings(timeout_s=180), case="c", variant="v"),
    )
    assert [r.outcome for r in results] == ["ok"] * len(runnable), [r.signature for r in results]
