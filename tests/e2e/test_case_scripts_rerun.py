"""Every case script gives the same outcome when it is run a second time in the same folder: a
reader who runs `broken.py` twice must see the lesson twice, never a leftover of the first run.

The first runs are the matrix's own (harness/scheduler/matrix_pass.py runs each of them in a folder of its
own, then again there), so this costs one run per pair, not two."""

from __future__ import annotations

from harness.cases import VARIANTS, discover
from harness.profiles import resolve
from harness.run.launch.native import NativeLauncher
from harness.scheduler.matrix_pass import RERUN_PROFILE


def test_each_case_script_gives_the_same_outcome_when_run_again_in_its_folder(matrix_results, matrix_reruns):
    cases = [case for case in discover() if not NativeLauncher().missing(case.needs)]
    assert len(cases) >= 17, [case.name for case in cases]
    keys = [(case.name, variant, RERUN_PROFILE) for case in cases for variant in VARIANTS]
    pairs = [key for key in keys if matrix_results[key].outcome != "skipped"]
    assert len(pairs) >= 32 and set(matrix_reruns) == set(pairs), "each run was made a second time"
    differ = [
        f"{name} {variant}: first {first.outcome} ({first.signature}), "
        f"then {second.outcome} ({second.signature})"
        for (name, variant, _), first, second in (
            (key, matrix_results[key], matrix_reruns[key]) for key in pairs
        )
        if first.outcome != second.outcome
    ]
    assert not differ, "\n".join(differ)
    assert resolve(RERUN_PROFILE).start_method == "fork"
