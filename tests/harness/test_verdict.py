"""One path from a script to its verdict (harness/verdict.py): `run`, `check` and `script` reach
theirs through the same function, and give the same script the same verdict."""

from __future__ import annotations

import pytest

from harness import cli, verdict
from harness.cases import CASES_DIR

SCRIPT = CASES_DIR / "03_lambda_collate" / "broken.py"  # ok under fork, a crash under spawn
PROFILES = ("linux", "windows-emulated")


@pytest.mark.slow
def test_run_check_and_script_give_one_script_the_same_verdict_through_one_function(monkeypatch):
    reached: dict[str, dict[str, object]] = {}
    command = [""]  # the command running now
    original = verdict.reach

    def spy(script, profile, *args, **kwargs):
        result = original(script, profile, *args, **kwargs)
        assert script.resolve() == SCRIPT.resolve(), "the script itself, unmodified"
        reached.setdefault(command[0], {})[result.profile] = result
        return result

    monkeypatch.setattr(verdict, "reach", spy)
    for name, argv in [
        ("run", ["run", "03", "--variant", "broken", "--no-record", "--profile", ",".join(PROFILES)]),
        ("check", ["check", str(SCRIPT), "--json", "--profile", ",".join(PROFILES)]),
        ("script", ["script", str(SCRIPT), "--profile", ",".join(PROFILES)]),
    ]:
        command[0] = name
        cli.main(argv)
    assert set(reached) == {"run", "check", "script"}, "each command went through verdict.reach"
    for profile in PROFILES:
        seen = {name: runs[profile] for name, runs in reached.items()}
        outcomes = {name: result.outcome.value for name, result in seen.items()}
        assert len(set(outcomes.values())) == 1, (profile, outcomes)
        if seen["run"].outcome.is_failure:
            signatures = {name: result.signature for name, result in seen.items()}
            assert len(set(signatures.values())) == 1, (profile, signatures)
    assert reached["run"]["windows-emulated"].outcome.value == "crash", "the test can tell verdicts apart"
