"""Where a run shows nothing about the script (harness/skips.py): its way of running failed by
itself, or this machine lacks a GPU; every other failure stands as the script's."""

from __future__ import annotations

import pytest

from harness import skips
from harness.outcomes import Outcome
from harness.results import RunResult
from harness.run.launch import native, wine

NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled"
WIN_1359 = "OSError: [WinError 1359] Internal error"
MISSING = "ModuleNotFoundError: No module named 'psutil'"  # imports here (a dependency)
UNIMPLEMENTED = "wine: Unimplemented function ucrtbase.dll.feholdexcept called at address 000000007B013D7E"


def _run(outcome: str, signature: str = "", output: str = "") -> RunResult:
    return RunResult(case="c", variant="check", profile="p", outcome=Outcome(outcome), signature=signature,
                     output_tail=output)  # fmt: skip


@pytest.mark.parametrize("launcher", [native.NativeLauncher(), wine.WineLauncher("windows")])
def test_no_gpu_here_shows_nothing_under_any_way_of_running(launcher):
    fault = skips.after(_run("crash", NOT_COMPILED), "", launcher)
    assert fault is not None and not fault.passing and "no usable GPU" in fault.reason
    assert skips.after(_run("ok"), NOT_COMPILED, launcher) is None


def test_the_native_way_never_blames_itself():
    launcher = native.NativeLauncher()
    for signature, output in [(WIN_1359, ""), (MISSING, ""), ("SystemError: x", UNIMPLEMENTED)]:
        assert skips.after(_run("crash", signature), output, launcher) is None


def test_wine_failing_now_and_then_is_run_again_and_its_gaps_are_said():
    launcher = wine.WineLauncher("windows")
    again = skips.after(_run("crash", WIN_1359), "", launcher)
    assert again.passing and WIN_1359 in again.reason
    gap = skips.after(_run("crash", "SystemError: x"), f"{UNIMPLEMENTED}\n" + "line\n" * 200, launcher)
    assert not gap.passing and "does not implement ucrtbase.dll.feholdexcept" in gap.reason
    lacking = skips.after(_run("crash", MISSING), "", launcher)
    assert not lacking.passing and "has no module 'psutil'" in lacking.reason


def test_a_hang_is_never_a_missing_module_and_a_clean_run_has_no_fault():
    launcher = wine.WineLauncher("windows")
    hung = _run("hang", "hang: 2 process(es) in wait", f"Traceback (most recent call last):\n{MISSING}\n")
    assert skips.after(hung, "", launcher) is None
    assert skips.after(_run("ok", "", UNIMPLEMENTED), UNIMPLEMENTED, launcher) is None


def test_skipped_keeps_what_was_observed_and_drops_the_signature():
    result = skips.skipped(_run("crash", NOT_COMPILED, "tail"), "why")
    assert (result.outcome, result.signature, result.reason, result.output_tail) == (
        Outcome.SKIPPED, "", "why", "tail"
    )  # fmt: skip
