"""From what the runner observed to an outcome: why the harness stopped a run decides first, then
how the script ended, then the case's own thresholds. No script is run here."""

from __future__ import annotations

import dataclasses

import pytest

from harness import judge, profiles, scheduler, verdict
from harness.cases import discover
from harness.outcomes import Outcome
from harness.run.observation import Observation, Stop
from harness.run.settings import IDLE_S, MEMORY_LIMIT_MB, PROCESS_LIMIT, RunSettings

CASES = {case.name: case for case in discover()}


@pytest.mark.parametrize(
    ("stop", "note", "outcome"),
    [
        (Stop.PROCESSES, "the run started over 64 processes at once", Outcome.CRASH),
        (Stop.OUTPUT, "the run wrote over 64 MB of output; stopped by the harness", Outcome.CRASH),
        (Stop.MEMORY, "the run's memory reached 900 MB, over its limit of 500 MB", Outcome.LEAK),
    ],
)
def test_a_limit_the_harness_enforced_is_the_outcome_whatever_the_output(stop, note, outcome):
    observed = Observation(
        stop=stop, stop_note=note, output="Traceback (most recent call last):\nKeyError: 'x'"
    )
    assert judge.judge(observed, None) == (outcome, note)


def test_a_run_stopped_after_its_batches_worked():
    observed = Observation(stop=Stop.BATCHES, returncode=0, stopped_after_batches=4)
    assert judge.judge(observed, None) == (Outcome.OK, "stopped by the harness after 4 batches")


def test_a_stall_is_a_hang_that_says_how_long_no_batch_came():
    observed = Observation(stop=Stop.STALL, stop_note="no batch for 12 s")
    assert observed.timed_out
    assert judge.judge(observed, None) == (Outcome.HANG, "no exit before the timeout; no batch for 12 s")


def test_an_exit_is_classified_from_its_output():
    observed = Observation(returncode=1, output="Traceback (most recent call last):\nValueError: bad\n")
    assert judge.judge(observed, None) == (Outcome.CRASH, "ValueError: bad")
    assert not observed.timed_out and Observation(stop=Stop.TIMEOUT).timed_out


def test_a_clean_exit_is_judged_by_the_cases_thresholds():
    memory = {"workers": {"1": {"baseline_mb": 10, "peak_mb": 90, "growth_mb": 80}}}
    observed = Observation(returncode=0, memory=memory)
    assert judge.judge(observed, CASES["06_memory_growth"])[0] is Outcome.LEAK
    assert judge.judge(observed, None) == (Outcome.OK, "")


def test_a_case_builds_its_run_settings_and_a_copy_adjusts_them():
    case = CASES["06_memory_growth"]
    settings = case.settings()
    assert settings == RunSettings(
        timeout_s=case.timeout, memory_interval_s=case.memory_interval_s, memory_limit_mb=case.memory_limit_mb
    )
    assert case.settings(timeout_s=5).timeout_s == 5 and settings.process_limit == PROCESS_LIMIT
    default = CASES["01_missing_main_guard"].settings()
    assert (default.idle_s, default.memory_limit_mb) == (IDLE_S, MEMORY_LIMIT_MB), "one default each"
    assert CASES["07_interactive_main_class"].settings().via_stdin
    assert settings.watches_progress, "every run is watched for idleness"
    unwatched = dataclasses.replace(settings, idle_s=None)
    assert not unwatched.watches_progress
    assert dataclasses.replace(unwatched, stop_after_batches=3).watches_progress
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.timeout_s = 1  # type: ignore[misc]


def test_a_job_carries_one_settings_and_a_result_records_its_limits(tmp_path):
    """The timeout and the idle limit travel together from the command line and the case to the
    run, and come back with its result (a recorded hang says what it ran under)."""
    from harness.profiles import Profile

    case = CASES["04_opencv_thread_deadlock"]
    linux = profiles.resolve("linux")
    (job,) = scheduler.plan([case], ["broken"], [linux], idle_s=2.5)
    assert (job.settings.timeout_s, job.settings.idle_s) == (case.timeout, 2.5)
    assert scheduler.plan([case], ["broken"], [linux], timeout_s=7, idle_s=None)[0].settings.idle_s is None
    assert scheduler.plan([case], ["broken"], [linux])[0].settings.idle_s == IDLE_S
    impossible = Profile("vfork", "vfork", "linux", "no such start method")
    script = tmp_path / "ran.py"
    script.write_text("print('ran')\n")
    skipped = verdict.reach(script, impossible, job.settings, case="c", variant="v")
    assert skipped.outcome is Outcome.SKIPPED
    assert skipped.limits == {
        "timeout_s": case.timeout,
        "idle_s": 2.5,
        "stall_s": None,
        "memory_limit_mb": 4096,
    }


def test_the_command_line_overrides_only_what_it_was_given():
    import argparse

    from harness.commands import arguments

    parser = argparse.ArgumentParser()
    arguments.add_timeout(parser, None, "per run")
    arguments.add_idle(parser)
    case = CASES["04_opencv_thread_deadlock"]
    assert arguments.overrides(parser.parse_args([])) == {}
    assert case.settings(**arguments.overrides(parser.parse_args([]))) == case.settings()
    given = arguments.overrides(parser.parse_args(["--timeout", "7", "--idle", "0"]))
    assert given == {"timeout_s": 7.0, "idle_s": None}, "--idle 0: never"
    assert arguments.overrides(parser.parse_args(["--idle", "2.5"])) == {"idle_s": 2.5}
