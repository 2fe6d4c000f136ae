"""Hostile scripts (tests/faults/): each is classified as it should be and leaves nothing behind."""

from __future__ import annotations

import re
import time

import psutil
import pytest

from harness import judge, outcome_table, verdict
from harness.run import runner
from harness.run.runner import OUTPUT_LIMIT_BYTES
from harness.run.settings import PROCESS_LIMIT, RunSettings
from tests.conftest import TESTS_DIR

pytestmark = pytest.mark.linux


FAULTS = TESTS_DIR / "faults"


slow = pytest.mark.slow


def observe(name: str, timeout: float = 30, **settings):
    return verdict.reach(
        FAULTS / name, "linux", RunSettings(timeout_s=timeout, **settings), case=name, variant="fault"
    )


@slow
def test_ignoring_sigterm_does_not_save_a_hung_run(contained):
    started = time.monotonic()
    result = observe("ignores_sigterm.py", timeout=6)
    assert result.outcome == "hang"
    assert time.monotonic() - started < 6 + 30, "its SIGTERM handler did not keep it alive"


@slow
def test_a_grandchild_in_its_own_session_is_found_and_ended(contained):
    result = observe("escapes_session.py")
    assert result.outcome == "ok"
    assert len(result.leftovers) == 1 and "escapes_session.py" in result.leftovers[0]


@slow
def test_huge_output_is_capped_and_the_tail_kept(contained):
    result = observe("huge_output.py", timeout=120)
    assert result.outcome == "crash"
    assert (
        result.signature
        == f"the run wrote over {OUTPUT_LIMIT_BYTES >> 20} MB of output; stopped by the harness"
    )
    assert 0 < len(result.output_tail) <= judge.OUTPUT_TAIL_CHARS


@slow
def test_bytes_that_are_not_utf8_and_no_newline(contained):
    result = observe("odd_output.py")
    assert result.outcome == "crash" and result.returncode == 3
    assert "caf\ufffd" in result.output_tail and result.output_tail.endswith("partial line without newline")


@slow
def test_death_by_signal_names_the_signal(contained):
    result = observe("segfaults.py")
    assert (result.outcome, result.signal) == ("crash", "SIGSEGV")
    assert result.signature == "killed by SIGSEGV" or "Segmentation fault" in result.signature


@slow
def test_a_worker_killed_by_sigkill_gives_torchs_own_line(contained):
    result = observe("kills_worker.py")
    assert result.outcome == "crash"
    assert result.signature.startswith("RuntimeError: DataLoader worker (pid ")
    assert result.signature.endswith("is killed by signal: Killed.")


@slow
def test_closing_its_own_output_is_fine(contained):
    assert observe("closes_output.py").outcome == "ok"


@slow
def test_unbounded_memory_is_stopped_by_the_limit(contained, tmp_path):
    hog = tmp_path / "hog.py"
    hog.write_text("blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n")
    result = verdict.reach(
        hog, "linux", RunSettings(timeout_s=60, memory_limit_mb=500), case="hog", variant="fault"
    )
    assert result.outcome == "leak" and "over its limit of 500 MB" in result.signature
    assert psutil.virtual_memory().available > 2 << 30


@slow
def test_shared_memory_left_by_a_killed_run_is_recorded_and_removed(contained):
    result = observe("leaves_shm.py", timeout=8)
    assert result.outcome == "hang"
    # 64 samples in batches of 8, one shared segment per batch, named after the worker that made it
    assert len(result.shm_leftovers) == 8
    assert all(re.fullmatch(r"torch_\d+_\d+_\d+ \(\d+ KB\)", entry) for entry in result.shm_leftovers)
    assert "8 shared-memory file(s) left in /dev/shm (removed by the harness)" in outcome_table.cleanup_note(
        result
    )


@slow
def test_a_script_that_respawns_itself_is_stopped_at_the_process_limit(contained):
    result = observe("respawns.py", timeout=60)
    assert result.outcome == "crash"
    assert result.signature.startswith(f"the run started over {PROCESS_LIMIT} processes at once")
    assert "__main__" in result.signature
    assert result.duration_s < 45  # stopped by the process limit, not by the 60 s timeout


@slow
def test_a_failure_of_the_harness_during_a_run_still_ends_the_run(contained, monkeypatch):
    checks = []

    def fails_later(run, settings, now):
        checks.append(1)
        if len(checks) > 4:  # the script has forked its grandchild by now
            raise OSError("the run's folder went away")

    monkeypatch.setattr(runner, "_limit_passed", fails_later)
    result = observe("escapes_and_hangs.py", timeout=60)
    assert result.outcome == "error" and "the run's folder went away" in result.reason
