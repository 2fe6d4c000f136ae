"""Each case through the harness, broken and fixed, under all three start methods.

The outcomes and cause signatures are stated here, independently of case.toml, and the harness's
own comparison with case.toml must agree.
"""

from __future__ import annotations

import re

import pytest

from harness.cases import START_METHODS

GUARD = (
    r"^RuntimeError: An attempt has been made to start a new process"
    r" before the current process has finished its bootstrapping phase"
)
OPEN_FILE = r"^TypeError: cannot pickle '_io\.TextIOWrapper' object$"
LAMBDA = r"^AttributeError: Can't (pickle|get) local object 'main\.<locals>\.<lambda>'$"

# (case, variant) -> {start method: (outcome, signature pattern or None)}
OBSERVED_HERE = {
    ("01_missing_main_guard", "broken"): {
        "fork": ("ok", None),
        "forkserver": ("crash", GUARD),
        "spawn": ("crash", GUARD),
    },
    ("02_open_file_handle", "broken"): {
        "fork": ("ok", None),
        "forkserver": ("crash", OPEN_FILE),
        "spawn": ("crash", OPEN_FILE),
    },
    ("03_lambda_collate", "broken"): {
        "fork": ("ok", None),
        "forkserver": ("crash", LAMBDA),
        "spawn": ("crash", LAMBDA),
    },
}
for (case, _), _expected in list(OBSERVED_HERE.items()):
    OBSERVED_HERE[(case, "fixed")] = {method: ("ok", None) for method in START_METHODS}

PARAMS = [
    pytest.param(case, variant, method, id=f"{case}-{variant}-{method}")
    for (case, variant) in OBSERVED_HERE
    for method in START_METHODS
]


@pytest.mark.parametrize(("case", "variant", "method"), PARAMS)
def test_outcome_and_signature(matrix_results, case, variant, method):
    result = matrix_results[(case, variant, method)]
    outcome, signature = OBSERVED_HERE[(case, variant)][method]
    context = f"{result.outcome}: {result.signature}\n{result.output_tail}"
    assert result.outcome == outcome, context
    if signature is None:
        assert result.signature == "", context
    else:
        assert re.search(signature, result.signature), context
    assert result.matched is True, f"case.toml disagrees with the observation: {context}"
    assert result.leftover_pids == [], "a process of the run outlived its main process"


def test_every_case_is_covered(catalog):
    assert {case.name for case in catalog} >= {case for case, _ in OBSERVED_HERE}


def test_parent_shows_only_the_consequence_for_the_guard_case(matrix_results):
    """The parent's last line names the dead worker; the signature must name the worker's cause."""
    result = matrix_results[("01_missing_main_guard", "broken", "spawn")]
    last_exception = [line for line in result.output_tail.splitlines() if line.startswith("RuntimeError")][-1]
    assert "exited unexpectedly" in last_exception
    assert "bootstrapping phase" in result.signature
