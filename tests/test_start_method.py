"""The harness imposes each profile's start method on the script and on its DataLoader workers."""

from __future__ import annotations

import json

import pytest

from harness.profiles import PROFILES
from harness.runner import run_script
from harness.settings import RunSettings
from tests.conftest import SCRIPTS_DIR

pytestmark = [pytest.mark.slow, pytest.mark.linux]


@pytest.mark.parametrize("profile", PROFILES)
def test_start_method_reaches_parent_and_workers(profile):
    method = PROFILES[profile].start_method
    observed = run_script(SCRIPTS_DIR / "probe_start_method.py", profile, RunSettings(timeout_s=60))
    assert observed.returncode == 0, observed.output
    # Python's resource tracker may print a warning after the report: take the report's own line.
    reports = [line for line in observed.output.splitlines() if line.startswith('{"parent"')]
    assert len(reports) == 1, observed.output
    assert json.loads(reports[0]) == {"parent": method, "workers": [method]}


def test_script_runs_as_main_from_its_own_path(tmp_path):
    script = tmp_path / "where.py"
    script.write_text(
        "import json, os, sys\n"
        "print(json.dumps({'name': __name__, 'path0': sys.path[0], 'cwd': os.getcwd()}))\n"
    )
    observed = run_script(script, "windows", RunSettings(timeout_s=30))
    report = json.loads(observed.output.strip().splitlines()[-1])
    assert report["name"] == "__main__"
    assert report["path0"] == str(tmp_path)
    assert report["cwd"] != str(tmp_path), "each run gets its own temporary working directory"
