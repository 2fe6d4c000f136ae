"""The one verdict on a finished run (harness/verdict.py `report`): when it shows nothing about the
script (`skipped`, with harness/skips.py's reason), when it is run once more, and when the failure
stands as the script's."""

from __future__ import annotations

import pytest

from harness import skips, verdict
from harness.cases import discover
from harness.outcomes import Outcome
from harness.results import RunResult
from harness.run.launch import native, wine
from harness.run.observation import Observation, Stop

NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled"
WIN_1359 = "OSError: [WinError 1359] Internal error"
MISSING = "ModuleNotFoundError: No module named 'psutil'"  # imports here (a dependency)
UNIMPLEMENTED = "wine: Unimplemented function ucrtbase.dll.feholdexcept called at address 000000007B013D7E"
BASE = {"case": "c", "variant": "check", "profile": "p"}
QUIET_S = 4.0
HUNG_IN = (  # a worker's stack, as faulthandler writes it
    "# pid 7, parent 1: python\nCurrent thread 0x1 (most recent call first):\n"
    '  File "/work/x/train.py", line 9 in __getitem__\n'
)


def _report(observed: Observation, launcher=None, **options) -> verdict.Report:
    return verdict.report(observed, BASE, launcher=launcher, quiet_s=QUIET_S, **options)


def _crashed(line: str, output: str = "") -> Observation:
    return Observation(returncode=1, output=f"{output}Traceback (most recent call last):\n{line}\n")


@pytest.mark.parametrize("launcher", [native.NativeLauncher(), wine.WineLauncher("windows")])
def test_no_gpu_here_shows_nothing_under_any_way_of_running(launcher):
    made = _report(_crashed(NOT_COMPILED), launcher)
    assert made.result.outcome is Outcome.SKIPPED and "no usable GPU" in made.result.reason
    assert not made.again
    assert _report(Observation(returncode=0, output=NOT_COMPILED), launcher).result.outcome is Outcome.OK


def test_the_native_way_never_blames_itself():
    launcher = native.NativeLauncher()
    for observed in [_crashed(WIN_1359), _crashed(MISSING), _crashed("SystemError: x", f"{UNIMPLEMENTED}\n")]:
        made = _report(observed, launcher)
        assert made.result.outcome is Outcome.CRASH and not made.again, made.result.reason


def test_wine_failing_now_and_then_is_run_again_once_and_skipped_if_seen_again():
    launcher = wine.WineLauncher("windows")
    first = _report(_crashed(WIN_1359), launcher)
    assert first.again and first.result.outcome is Outcome.CRASH
    second = _report(_crashed(WIN_1359), launcher, retried=True).result
    assert second.outcome is Outcome.SKIPPED, "a passing fault seen twice is still not the script's"
    assert WIN_1359 in second.reason and "seen again" in second.reason


def test_wine_ending_before_the_interpreter_started_is_wines_doing_and_run_again():
    """Seen in the full suite: a Wine run ended with exit status 1, no output, 0.018 s in, before
    Python started; it passed when run again. The native way never blames itself for that."""
    ended = Observation(returncode=1, duration_s=0.018, interpreter_started=False)
    first = _report(ended, wine.WineLauncher("windows"))
    assert first.again, "run once more"
    second = _report(ended, wine.WineLauncher("windows"), retried=True).result
    assert second.outcome is Outcome.SKIPPED and "before the Windows interpreter started" in second.reason
    assert "exit status 1, no output" in second.reason and "seen again" in second.reason
    assert not _report(ended, native.NativeLauncher()).again
    started = _report(Observation(returncode=1, duration_s=0.4), wine.WineLauncher("windows"))
    assert not started.again and started.result.outcome is Outcome.CRASH


def test_a_run_stopped_at_its_memory_limit_under_wine_is_not_judged_natively_it_is():
    """A worker under Wine holds 3.5 times its memory spawned natively: sixty of them passed 16 GB."""
    note = "the run's memory reached 16709 MB, over its limit of 16384 MB; stopped by the harness"
    stopped = Observation(stop=Stop.MEMORY, stop_note=note, duration_s=120.2)
    under_wine = _report(stopped, wine.WineLauncher("windows"))
    assert not under_wine.again and under_wine.result.outcome is Outcome.SKIPPED
    assert under_wine.result.reason.startswith(f"{note}, under Wine") and "505 MB" in under_wine.result.reason
    native_run = _report(stopped, native.NativeLauncher())
    assert native_run.result.outcome is Outcome.LEAK and not native_run.again


def test_wine_gaps_and_missing_modules_are_said_at_once():
    launcher = wine.WineLauncher("windows")
    gap = _report(_crashed("SystemError: x", f"{UNIMPLEMENTED}\n" + "line\n" * 200), launcher)
    assert not gap.again and gap.result.outcome is Outcome.SKIPPED
    assert "does not implement ucrtbase.dll.feholdexcept" in gap.result.reason
    lacking = _report(_crashed(MISSING), launcher)
    assert not lacking.again and "has no module 'psutil'" in lacking.result.reason


def test_a_hang_is_never_a_missing_module():
    launcher = wine.WineLauncher("windows")
    hung = Observation(stop=Stop.TIMEOUT, cpu_share=0.0, stacks={"7": HUNG_IN}, output=f"{MISSING}\n")
    made = _report(hung, launcher)
    assert made.result.outcome is Outcome.HANG and not made.again
    assert _report(Observation(returncode=0, output=UNIMPLEMENTED), launcher).result.outcome is Outcome.OK


def test_a_run_ended_while_it_worked_is_slow_not_hung():
    """The timeout came while its processes used the CPU, and no worker was blocked: not judged,
    with the batches and seconds it got; seen waiting (no CPU used, or a worker blocked), a hang."""
    working = Observation(
        stop=Stop.TIMEOUT, cpu_share=0.9, batches=3, duration_s=240.2, stacks={"7": HUNG_IN}
    )
    made = _report(working).result
    assert made.outcome is Outcome.SKIPPED and made.signature == ""
    assert made.duration_s == 240.2 and made.stacks, "what it did is kept"
    assert made.reason.startswith("not judged: 3 batches in 240 s, too slow here to finish")
    waiting = _report(Observation(stop=Stop.TIMEOUT, cpu_share=0.003, stacks={"7": HUNG_IN})).result
    assert waiting.outcome is Outcome.HANG
    assert (
        waiting.signature
        == "hang: 1 process(es) in __getitem__ (train.py:9); 0% of a CPU used before the stop"
    )
    blocked = _report(
        Observation(stop=Stop.TIMEOUT, cpu_share=0.9, blocked=[7], stacks={"7": HUNG_IN})
    ).result
    assert blocked.outcome is Outcome.HANG and "1 worker(s) blocked on a lock" in blocked.signature
    unread = _report(Observation(stop=Stop.STALL, stop_note="no batch for 30 s")).result
    assert unread.outcome is Outcome.SKIPPED, "no evidence of waiting gathered: no hang"


def test_a_run_starved_of_the_cpu_on_a_busy_machine_is_slow_not_hung():
    """Issue seen in CI: a CPU-bound run under Wine on a machine with many times more runnable
    processes than CPUs used 9% of a CPU and was called hung. What its threads spent runnable,
    waiting for a CPU, counts as work: not judged, and the words say both."""
    stalled = {"stop": Stop.STALL, "stop_note": "no batch for 35 s", "stacks": {"7": HUNG_IN}}
    starved = Observation(**stalled, cpu_share=0.09, cpu_queued=0.8, batches=2, duration_s=90.0)
    made = _report(starved).result
    assert made.outcome is Outcome.SKIPPED
    assert "9% of a CPU used, 80% more runnable, waiting for a CPU" in made.reason
    waiting = _report(Observation(**stalled, cpu_share=0.02, cpu_queued=0.001)).result
    assert waiting.outcome is Outcome.HANG and waiting.signature.endswith("2% of a CPU used before the stop")


def test_a_kill_by_the_machines_own_oom_killer_is_not_the_scripts():
    killed = "RuntimeError: DataLoader worker (pid 9) is killed by signal: Killed."
    by_machine = _report(Observation(returncode=1, output=f"{killed}\n", machine_oom_kills=1)).result
    assert by_machine.outcome is Outcome.SKIPPED and "own OOM killer ended 1 process" in by_machine.reason
    main_killed = _report(Observation(returncode=-9, machine_oom_kills=2)).result
    assert main_killed.outcome is Outcome.SKIPPED
    in_our_limit = Observation(returncode=-9, machine_oom_kills=1, ended_processes=1)
    assert _report(in_our_limit).result.outcome is Outcome.CRASH, "the harness's memory limit judges it"
    elsewhere = Observation(returncode=1, output="ValueError: bad\n", machine_oom_kills=1)
    assert _report(elsewhere).result.outcome is Outcome.CRASH, "killed nothing of this run"


def test_worker_memory_read_as_rss_is_not_judged_against_a_uss_threshold():
    case = next(c for c in discover() if c.name == "06_memory_growth")
    worker = {"role": "worker", "metric": "rss", "baseline_mb": 6.0, "growth_mb": 90.0}
    observed = Observation(returncode=0, memory={"workers": {"7": worker}})
    made = verdict.report(observed, BASE, case, quiet_s=QUIET_S).result
    assert made.outcome is Outcome.SKIPPED and "only as RSS" in made.reason and "set for USS" in made.reason
    observed.memory["workers"]["7"]["metric"] = "uss"
    assert verdict.report(observed, BASE, case, quiet_s=QUIET_S).result.outcome is Outcome.LEAK


def test_skipped_keeps_what_was_observed_and_drops_the_signature():
    result = RunResult(**BASE, outcome=Outcome.CRASH, signature=NOT_COMPILED, output_tail="tail")
    result = skips.skipped(result, "why")
    assert (result.outcome, result.signature, result.reason, result.output_tail) == (
        Outcome.SKIPPED, "", "why", "tail"
    )  # fmt: skip
