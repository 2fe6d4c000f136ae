"""When an expectation counts as unverified (harness/scheduler.py `execute`): on the real platform
of a profile until a results file from there confirms it, and never for a native run that matched
it (that run is the confirmation)."""

from __future__ import annotations

import pytest

from harness import cases, confirmations, profiles, scheduler
from harness.outcomes import Outcome
from harness.results import RunResult

LAMBDA_314 = "_pickle.PicklingError: Can't pickle local object <function main.<locals>.<lambda> at 0x7f>"


def _execute(monkeypatch, signature: str, emulation: str) -> RunResult:
    (case,) = cases.select(cases.discover(), ["03"])
    (job,) = scheduler.plan([case], ["broken"], [profiles.PROFILES["linux-3.14"]])
    observed = RunResult(
        case=case.name, variant="broken", profile="linux-3.14", start_method="forkserver",
        emulation=emulation, outcome=Outcome.CRASH, signature=signature,
    )  # fmt: skip
    monkeypatch.setattr(scheduler, "observe", lambda *args, **kwargs: observed)
    monkeypatch.setattr(confirmations, "confirmed", lambda *key, **options: False)
    return scheduler.execute(job)


@pytest.mark.parametrize(
    ("signature", "emulation", "matched", "unverified"),
    [
        (LAMBDA_314, "", True, False),  # Python 3.14 itself, as expected: confirmed by this run
        ("TypeError: something else", "", False, True),  # 3.14 itself, not as expected: reported
        (LAMBDA_314, "forkserver on Linux, Python 3.11", True, False),  # an emulation: never unverified
    ],
)
def test_a_native_run_that_matches_is_its_own_confirmation(
    monkeypatch, signature, emulation, matched, unverified
):
    result = _execute(monkeypatch, signature, emulation)
    assert (result.matched, result.expected_unverified) == (matched, unverified)


def test_a_run_that_wine_itself_failed_is_run_again_once(monkeypatch):
    (case,) = cases.select(cases.discover(), ["02"])
    (job,) = scheduler.plan([case], ["fixed"], [profiles.PROFILES["windows"]])
    seen = iter([(Outcome.CRASH, "OSError: [WinError 1359] Internal error"), (Outcome.OK, "")])
    calls = []

    def observe(*args, **kwargs):
        outcome, signature = next(seen)
        calls.append(outcome)
        return RunResult(
            case=case.name, variant="fixed", profile="windows", outcome=outcome, signature=signature
        )

    monkeypatch.setattr(scheduler, "observe", observe)
    assert scheduler.execute(job).outcome is Outcome.OK and calls == [Outcome.CRASH, Outcome.OK]
