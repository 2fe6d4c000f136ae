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


SLEEPS = "import time\nprint('working', flush=True)\ntime.sleep(60)\n"


@pytest.mark.slow
def test_a_run_cut_short_by_the_commands_deadline_is_not_judged_and_says_so(tmp_path):
    """check's deadline came before the run ended or reached its own timeout: no hang is made of
    it (the script did nothing wrong that anyone saw); and a run whose start comes after the
    deadline is not started."""
    import time

    from harness.outcomes import Outcome
    from harness.run.settings import RunSettings

    script = tmp_path / "sleeps.py"
    script.write_text(SLEEPS)
    started = time.monotonic()
    settings = RunSettings(timeout_s=30, idle_s=None, deadline=started + 3)
    result = verdict.reach(script, "linux", settings, case="sleeps.py", variant="check")
    assert result.outcome is Outcome.SKIPPED and not result.outcome.was_judged, result.signature
    assert "the command's deadline came 3 s into the run" in result.reason, result.reason
    assert "its own timeout of 30 s: stopped, not judged" in result.reason
    assert time.monotonic() - started < 10
    late = verdict.reach(script, "linux", settings, case="sleeps.py", variant="check")
    assert late.outcome is Outcome.SKIPPED and "before this run could start" in late.reason
