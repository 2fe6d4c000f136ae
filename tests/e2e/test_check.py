"""`check` and `lint` on the cases and on realistic scripts: each broken case diagnosed as itself,
each fixed one clean, long scripts judged from their first batches."""

from __future__ import annotations

import pytest

from harness.cases import discover
from harness.diagnose import diagnose
from harness.lint import lint_paths
from harness.profiles import PROFILE_NAMES

pytestmark = pytest.mark.linux


CASES = discover()


def diagnosed(case, variant, matrix_results):
    runs = [matrix_results[(case.name, variant, profile)] for profile in PROFILE_NAMES]
    findings = lint_paths([case.script(variant)], notebook=case.via_stdin)
    return diagnose(CASES, runs, findings), findings


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_broken_case_is_diagnosed_as_itself_first(matrix_results, case):
    found, _ = diagnosed(case, "broken", matrix_results)
    assert found, f"{case.name}: nothing recognised"
    assert found[0].case.name == case.name, [d.case.name for d in found]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_case_is_clean(matrix_results, case):
    found, findings = diagnosed(case, "fixed", matrix_results)
    assert findings == [] and found == [], (findings, [d.case.name for d in found])
