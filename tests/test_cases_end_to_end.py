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
OPENCV_HANG = r"^hang: 2 process\(es\) in limit_opencv_threads \(broken\.py:\d+\)"
GREW = r"^worker grew \d+ MB over its \d+ MB baseline \(threshold 40 MB\)$"
OBSERVED_HERE.update(
    {
        ("04_opencv_thread_deadlock", "broken"): {
            "fork": ("hang", OPENCV_HANG),
            "forkserver": ("ok", None),
            "spawn": ("ok", None),
        },
        ("06_memory_growth", "broken"): {
            "fork": ("leak", GREW),
            "forkserver": ("ok", GREW),
            "spawn": ("ok", GREW),
        },
        ("06_memory_growth", "fixed"): {method: ("ok", GREW) for method in START_METHODS},
    }
)
for case in (
    "01_missing_main_guard",
    "02_open_file_handle",
    "03_lambda_collate",
    "04_opencv_thread_deadlock",
):
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


@pytest.mark.parametrize("variant", ["broken", "fixed"])
@pytest.mark.parametrize("method", START_METHODS)
def test_cuda_case_is_skipped_without_a_gpu_never_ok(matrix_results, variant, method):
    result = matrix_results[("05_cuda_in_worker", variant, method)]
    if not result.reason.startswith("no usable CUDA GPU"):
        pytest.skip("this machine has a GPU: the case really ran")
    assert result.outcome == "skipped"
    assert result.matched is None, "a skipped run is neither a match nor a mismatch"
    assert result.expected_unverified, "GPU expectations stay marked unverified until observed"
