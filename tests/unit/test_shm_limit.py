"""A run in a /dev/shm of its own size (case 16, check --shm-mb): the script sees that size, the
machine's /dev/shm is untouched, and where the limit cannot apply the run is skipped, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cases import CaseError, load_case
from harness.profiles import PROFILES
from harness.run import confine
from harness.run.settings import RunSettings


def test_profiles_that_stand_for_windows_and_macos_are_skipped_with_the_reason():
    for name in ("windows", "windows-emulated", "macos"):
        profile = PROFILES[name]
        reason = confine.unavailable(
            RunSettings(1, confined={"dev_shm_mb": 64}), profile.system, profile.title
        )
        assert reason.startswith(f"{profile.title} has no /dev/shm to limit"), reason
    emulated = PROFILES["windows-emulated"]
    assert confine.unavailable(RunSettings(1), emulated.system, emulated.title) == ""


def test_a_bad_size_in_case_toml_names_the_file(tmp_path):
    folder = tmp_path / "99_bad_size"
    folder.mkdir()
    source = (
        Path(__file__).resolve().parents[2] / "cases" / "16_dev_shm_too_small" / "case.toml"
    ).read_text()
    (folder / "case.toml").write_text(source.replace("dev_shm_mb = 64", "dev_shm_mb = -1"))
    for variant in ("broken", "fixed"):
        (folder / f"{variant}.py").write_text("")
    with pytest.raises(CaseError, match=r"case\.toml: 'dev_shm_mb' must be positive"):
        load_case(folder)
