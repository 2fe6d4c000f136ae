"""Every case script gives the same outcome when it is run a second time in the same folder: a
reader who runs `broken.py` twice must see the lesson twice, never a leftover of the first run."""

from __future__ import annotations

import concurrent.futures
import dataclasses

import pytest

from harness import needs, scheduler
from harness.cases import VARIANTS, discover
from harness.profiles import resolve

pytestmark = [pytest.mark.slow, pytest.mark.linux]

# fork: the fastest profile, and the one under which the workers of cases 08 and 18 write into the
# run's folder as the main process does, so that a leftover of the first run shows in the second.
PROFILE = "linux"


def _twice(case, variant: str, folder) -> tuple[str, str, str, list]:
    settings = dataclasses.replace(case.settings(), cwd=folder)
    runs = [
        scheduler.observe(
            case.script(variant), PROFILE, settings, judging=case, case=case.name, variant=variant
        )
        for _ in range(2)
    ]
    return case.name, variant, str(folder), runs


def test_each_case_script_gives_the_same_outcome_when_run_again_in_its_folder(tmp_path):
    cases = [case for case in discover() if not needs.missing(case.needs)]
    assert len(cases) >= 17, [case.name for case in cases]
    jobs = [(case, variant, tmp_path / f"{case.name}-{variant}") for case in cases for variant in VARIANTS]
    for _, _, folder in jobs:
        folder.mkdir()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        pairs = list(pool.map(lambda job: _twice(*job), jobs))
    differ = [
        f"{name} {variant}: first {first.outcome} ({first.signature}), "
        f"then {second.outcome} ({second.signature}) in {folder}"
        for name, variant, folder, (first, second) in pairs
        if first.outcome != second.outcome
    ]
    assert not differ, "\n".join(differ)
    assert resolve(PROFILE).start_method == "fork"
