"""Each case through the harness, broken and fixed, under every profile.

The outcomes and cause signatures are stated here, independently of case.toml, and the harness's
own comparison with case.toml must agree.
"""

from __future__ import annotations

import os
import re

import pytest

from harness.profiles import BY_START_METHOD, PROFILE_NAMES, PROFILES
from harness.run.launch import wine_env as wine

pytestmark = pytest.mark.linux


def _profiles(by_method: dict) -> dict:
    """{profile: expectation} from {start method: expectation}: spawn stands for windows and macos."""
    return {profile: by_method[method] for method, names in BY_START_METHOD.items() for profile in names}


GUARD = (
    r"^RuntimeError: An attempt has been made to start a new process"
    r" before the current process has finished its bootstrapping phase"
)
OPEN_FILE = r"^TypeError: cannot pickle '(_io\.)?TextIOWrapper' (object|instances)$"  # 3.12+: instances
LAMBDA = r"^AttributeError: Can't (pickle|get) local object 'main\.<locals>\.<lambda>'$"

# (case, variant) -> {start method: (outcome, signature pattern or None)}; _profiles() turns them into
# {profile: …}, where the profiles of one start method agree
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
GREW = r"^worker grew \d+ MB over its \d+ MB baseline \(threshold 30 MB\)$"
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
        ("06_memory_growth", "fixed"): {method: ("ok", GREW) for method in BY_START_METHOD},
    }
)
NOTEBOOK_CLASS = r"^AttributeError: Can't get attribute 'Squares' on <module '__main__' \(built-in\)>$"
RUN_DIRS = r"^AssertionError: one training run made 3 run directories"
RUN_DIRS_PRELOADED = r"^AssertionError: one training run made 2 run directories"  # forkserver, 3.14.1+
REPEATS = r"^AssertionError: 32 of 64 random crop offsets repeat"
TWICE = r"^AssertionError: expected each of the 100 records once, got 200 records \(100 distinct\)$"
LOCK_HANG = r"^hang: 2 process\(es\) in record \(broken\.py:\d+\)"  # both workers stuck
NO_FILES = r"^RuntimeError: Too many open files\. Communication with the workers is no longer possible"
OMP_HANG = r"^hang: 2 process\(es\) in __getitem__ \(broken\.py:\d+\)"
WAITED = (
    r"^epochs after the first waited \d+\.\d\d s for their first batch"
    r"(, less that batch's own work)?, \d+% of their time"
)


def _same(outcome, signature=None):
    return {method: (outcome, signature) for method in BY_START_METHOD}


def _spawn_like(outcome, signature):
    return {"fork": ("ok", None), "forkserver": (outcome, signature), "spawn": (outcome, signature)}


def _fork_hang(signature):
    return {"fork": ("hang", signature), "forkserver": ("ok", None), "spawn": ("ok", None)}


OBSERVED_HERE.update(
    {
        ("07_interactive_main_class", "broken"): _spawn_like("crash", NOTEBOOK_CLASS),
        ("08_module_side_effects", "broken"): _spawn_like("wrong", RUN_DIRS),
        ("09_duplicated_randomness", "broken"): _same("wrong", REPEATS),
        ("10_iterable_dataset_duplicates", "broken"): _same("wrong", TWICE),
        ("11_lock_held_at_fork", "broken"): _fork_hang(LOCK_HANG),
        ("12_too_many_open_files", "broken"): _same("crash", NO_FILES),
        ("13_spawn_startup_cost", "broken"): {
            "fork": ("ok", WAITED),
            "forkserver": ("slow", WAITED),
            "spawn": ("slow", WAITED),
        },
        ("13_spawn_startup_cost", "fixed"): _same("ok", WAITED),
        ("14_openmp_threads_in_worker", "broken"): _fork_hang(OMP_HANG),
    }
)
for case, variant in list(OBSERVED_HERE):
    if variant == "broken" and (case, "fixed") not in OBSERVED_HERE:
        OBSERVED_HERE[(case, "fixed")] = _same("ok")
OBSERVED_HERE = {key: _profiles(by_method) for key, by_method in OBSERVED_HERE.items()}
# Where a profile differs from the others of its start method:
OBSERVED_HERE[("08_module_side_effects", "broken")]["linux-3.14"] = ("wrong", RUN_DIRS_PRELOADED)
OBSERVED_HERE[("12_too_many_open_files", "broken")].update(
    {"windows": ("ok", None), "windows-emulated": ("ok", None), "macos": ("ok", None)}
)
# The Windows profile runs Windows' CPython 3.13 under Wine: 3.13's wording where it differs.
OBSERVED_HERE[("02_open_file_handle", "broken")]["windows"] = (
    "crash",
    r"^TypeError: cannot pickle 'TextIOWrapper' instances$",
)
OBSERVED_HERE[("03_lambda_collate", "broken")]["windows"] = (
    "crash",
    r"^AttributeError: Can't get local object 'main\.<locals>\.<lambda>'$",
)
OBSERVED_HERE[("07_interactive_main_class", "broken")]["windows"] = (
    "crash",
    r"^AttributeError: Can't get attribute 'Squares' on "
    r"<module '__main__' \(<class '_frozen_importlib\.BuiltinImporter'>\)>$",
)

PARAMS = [
    pytest.param(case, variant, profile, id=f"{case}-{variant}-{profile}")
    for (case, variant) in OBSERVED_HERE
    for profile in PROFILE_NAMES
]


@pytest.mark.parametrize(("case", "variant", "profile"), PARAMS)
def test_outcome_and_signature(matrix_results, case, variant, profile):
    result = matrix_results[(case, variant, profile)]
    _skip_without_wine(profile, result)
    outcome, signature = OBSERVED_HERE[(case, variant)][profile]
    context = f"{result.outcome}: {result.signature}\n{result.output_tail}"
    assert result.outcome == outcome, context
    if signature is None:
        assert result.signature == "", context
    else:
        assert re.search(signature, result.signature), context
    assert result.matched is True, f"case.toml disagrees with the observation: {context}"
    assert result.leftovers == [], "a process of the run outlived its main process"


def _skip_without_wine(profile: str, result) -> None:
    """A run under Wine that was skipped for want of Wine or of the Windows environment: skipped
    here too (failed with DLP_REQUIRE_WINE=1, as in CI)."""
    if PROFILES[profile].launcher.name != "wine" or not wine.unavailable():
        return
    assert os.environ.get("DLP_REQUIRE_WINE") != "1", f"DLP_REQUIRE_WINE=1 but {wine.unavailable()}"
    assert result.outcome == "skipped" and result.reason == wine.unavailable(), result.reason
    pytest.skip(result.reason)


def test_a_spawned_child_under_wine_says_what_windows_users_search_for(matrix_results):
    """The child that Windows' spawn started finds no parent's pickle: it reads an empty pipe
    (`EOFError: Ran out of input`); or, where the parent already exited, cannot open the parent
    process (`OSError: [WinError 87]`); or, where the parent runs on but has closed its end of the
    pipe, cannot duplicate that handle (`OSError: [WinError 6]`, in `reduction.duplicate`). All three
    seen here, by timing."""
    result = matrix_results[("03_lambda_collate", "broken", "windows")]
    _skip_without_wine("windows", result)
    assert "multiprocessing\\spawn.py" in result.output_tail, "the child's own traceback"
    child = r"^(EOFError: Ran out of input|OSError: \[WinError (87|6)\])"
    assert re.search(child, result.output_tail, re.M)


def test_every_case_is_covered(catalog):
    assert {case.name for case in catalog} >= {case for case, _ in OBSERVED_HERE}


def test_parent_shows_only_the_consequence_for_the_guard_case(matrix_results):
    """The parent's last line names the dead worker; the signature must name the worker's cause."""
    result = matrix_results[("01_missing_main_guard", "broken", "windows-emulated")]
    last_exception = [line for line in result.output_tail.splitlines() if line.startswith("RuntimeError")][-1]
    assert "exited unexpectedly" in last_exception
    assert "bootstrapping phase" in result.signature


@pytest.mark.parametrize("variant", ["broken", "fixed"])
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_cuda_case_is_skipped_without_a_gpu_never_ok(matrix_results, variant, profile):
    result = matrix_results[("05_cuda_in_worker", variant, profile)]
    _skip_without_wine(profile, result)
    if PROFILES[profile].launcher.name == "wine":
        assert result.outcome == "skipped" and result.reason.startswith("no GPU under Wine"), result.reason
        return
    if not result.reason.startswith("no usable CUDA GPU"):
        pytest.skip("this machine has a GPU: the case really ran")
    assert result.outcome == "skipped"
    assert result.matched is None, "a skipped run is neither a match nor a mismatch"
    assert result.expected_unverified, "GPU expectations stay marked unverified until observed"


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_case_18s_fix_keeps_every_record_while_the_main_process_logs_too(matrix_results, profile):
    """The main process logs before, during and after the epoch; every process appends to one file,
    emptied once before any of them writes: no record of a worker or of main() is overwritten."""
    result = matrix_results[("18_logging_lost_in_workers", "fixed", profile)]
    _skip_without_wine(profile, result)
    assert "train.log holds 4 of 4 warnings and 4 of main()'s 4 records" in result.output_tail, (
        result.output_tail
    )
