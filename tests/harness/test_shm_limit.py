"""A run in a /dev/shm of its own size (case 16, check --shm-mb): the script sees that size, the
machine's /dev/shm is untouched, and where the limit cannot apply the run is skipped, saying why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import verdict
from harness.outcomes import Outcome
from harness.profiles import PROFILES
from harness.run import confine
from harness.run.runner import run_script
from harness.run.settings import RunSettings

FILLS_SHM = """
import os
size = os.statvfs("/dev/shm")
print("dev_shm_mb", size.f_blocks * size.f_frsize // (1 << 20))
with open("/dev/shm/dlp-test-{marker}", "wb") as f:
    f.write(b"x" * (3 << 20))
"""


@pytest.mark.slow
@pytest.mark.linux
def test_the_run_sees_its_own_small_dev_shm_and_leaves_the_machines_alone(tmp_path):
    linux = PROFILES["linux"]
    if reason := confine.unavailable(RunSettings(1, confined={"dev_shm_mb": 8}), linux.system, linux.title):
        pytest.skip(reason)
    marker = os.urandom(4).hex()
    script = tmp_path / "fills_shm.py"
    script.write_text(FILLS_SHM.format(marker=marker))
    observed = run_script(script, PROFILES["linux"], RunSettings(timeout_s=60, confined={"dev_shm_mb": 8}))
    assert observed.returncode == 0, observed.output
    assert "dev_shm_mb 8" in observed.output
    assert not Path(f"/dev/shm/dlp-test-{marker}").exists(), "written into the machine's /dev/shm"
    crowded = run_script(script, PROFILES["linux"], RunSettings(timeout_s=60, confined={"dev_shm_mb": 2}))
    assert "No space left on device" in crowded.output


@pytest.mark.slow
@pytest.mark.linux
def test_observe_skips_a_limited_run_under_a_profile_without_dev_shm(tmp_path):
    script = tmp_path / "nothing.py"
    script.write_text("")
    result = verdict.reach(
        script,
        "windows-emulated",
        RunSettings(timeout_s=30, confined={"dev_shm_mb": 64}),
        case="nothing.py",
        variant="check",
    )
    assert result.outcome is Outcome.SKIPPED and "no /dev/shm to limit" in result.reason
