"""When an expectation counts as unverified (harness/scheduler `execute`): on the real platform
of a profile until a results file from there confirms it, and never for a native run that matched
it (that run is the confirmation)."""

from __future__ import annotations

import pytest

from harness import cases, confirmations, profiles, scheduler, verdict
from harness.outcomes import Outcome
from harness.results import RunResult
from harness.run import runner
from harness.run.launch import How
from harness.run.observation import Observation

LAMBDA_314 = "_pickle.PicklingError: Can't pickle local object <function main.<locals>.<lambda> at 0x7f>"


def _execute(monkeypatch, signature: str, emulated: bool) -> RunResult:
    (case,) = cases.select(cases.discover(), ["03"])
    (job,) = scheduler.plan([case], ["broken"], [profiles.PROFILES["linux-3.14"]])
    observed = RunResult(
        case=case.name, variant="broken", profile="linux-3.14", start_method="forkserver",
        how=How("native", "CPython 3.14.2", "3.14.2", emulated), outcome=Outcome.CRASH, signature=signature,
    )  # fmt: skip
    monkeypatch.setattr(verdict, "reach", lambda *args, **kwargs: observed)
    monkeypatch.setattr(confirmations, "confirmed", lambda *key, **options: False)
    return scheduler.execute(job)


@pytest.mark.parametrize(
    ("signature", "emulated", "matched", "unverified"),
    [
        (LAMBDA_314, False, True, False),  # Python 3.14 itself, as expected: confirmed by this run
        ("TypeError: something else", False, False, True),  # 3.14 itself, not as expected: reported
        (LAMBDA_314, True, True, False),  # an emulation: never unverified
    ],
)
def test_a_native_run_that_matches_is_its_own_confirmation(
    monkeypatch, signature, emulated, matched, unverified
):
    result = _execute(monkeypatch, signature, emulated)
    assert (result.matched, result.expected_unverified) == (matched, unverified)


def test_a_run_that_wine_itself_failed_is_run_again_once(monkeypatch):
    (case,) = cases.select(cases.discover(), ["02"])
    (job,) = scheduler.plan([case], ["fixed"], [profiles.PROFILES["windows"]])
    seen = iter([
        Observation(returncode=1, output="OSError: [WinError 1359] Internal error\n"),
        Observation(returncode=0),
    ])  # fmt: skip
    calls = []

    def run_script(*args, **kwargs):
        calls.append(observed := next(seen))
        return observed

    monkeypatch.setattr(profiles.PROFILES["windows"].launcher, "unavailable", lambda: "")
    monkeypatch.setattr(profiles.PROFILES["windows"].launcher, "missing", lambda needs: "")
    # nothing brought to the Windows environment: the quick tier runs where there is none
    monkeypatch.setattr(profiles.PROFILES["windows"].launcher, "for_script", lambda *args: ((), ""))
    monkeypatch.setattr(runner, "run_script", run_script)
    assert scheduler.execute(job).outcome is Outcome.OK and len(calls) == 2
