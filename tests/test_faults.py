"""Hostile scripts (tests/faults/): each is classified as it should be and leaves nothing behind."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from harness import matrix
from harness.runner import OUTPUT_LIMIT_BYTES
from tests.test_interruption import run_processes_alive

FAULTS = Path(__file__).resolve().parent / "faults"


def run_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("dlp-run-*")}


@pytest.fixture
def contained():
    """Asserts afterwards: no process of any run is alive, no run folder and no /dev/shm entry is new."""
    shm = Path("/dev/shm")
    shm_before = set(os.listdir(shm)) if shm.is_dir() else set()
    dirs_before = run_dirs()
    yield
    time.sleep(0.3)
    assert run_processes_alive() == []
    assert run_dirs() <= dirs_before
    if shm.is_dir():
        assert set(os.listdir(shm)) <= shm_before


def observe(name: str, timeout: float = 30, **options):
    return matrix.observe(FAULTS / name, "fork", timeout, case=name, variant="fault", **options)


def test_ignoring_sigterm_does_not_save_a_hung_run(contained):
    started = time.monotonic()
    result = observe("ignores_sigterm.py", timeout=6)
    assert result.outcome == "hang"
    assert time.monotonic() - started < 6 + 10


def test_a_grandchild_in_its_own_session_is_found_and_ended(contained):
    result = observe("escapes_session.py")
    assert result.outcome == "ok"
    assert len(result.leftovers) == 1 and "escapes_session.py" in result.leftovers[0]


def test_huge_output_is_capped_and_the_tail_kept(contained):
    result = observe("huge_output.py", timeout=120)
    assert result.outcome == "crash"
    assert (
        result.signature
        == f"the run wrote over {OUTPUT_LIMIT_BYTES >> 20} MB of output; stopped by the harness"
    )
    assert 0 < len(result.output_tail) <= matrix.OUTPUT_TAIL_CHARS


def test_bytes_that_are_not_utf8_and_no_newline(contained):
    result = observe("odd_output.py")
    assert result.outcome == "crash" and result.returncode == 3
    assert "caf\ufffd" in result.output_tail and result.output_tail.endswith("partial line without newline")


def test_death_by_signal_names_the_signal(contained):
    result = observe("segfaults.py")
    assert (result.outcome, result.signal) == ("crash", "SIGSEGV")
    assert result.signature == "killed by SIGSEGV" or "Segmentation fault" in result.signature


def test_a_worker_killed_by_sigkill_gives_torchs_own_line(contained):
    result = observe("kills_worker.py")
    assert result.outcome == "crash"
    assert result.signature.startswith("RuntimeError: DataLoader worker (pid ")
    assert result.signature.endswith("is killed by signal: Killed.")


def test_closing_its_own_output_is_fine(contained):
    assert observe("closes_output.py").outcome == "ok"


def test_unbounded_memory_is_stopped_by_the_limit(contained, tmp_path):
    hog = tmp_path / "hog.py"
    hog.write_text("blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n")
    result = matrix.observe(hog, "fork", 60, case="hog", variant="fault", memory_limit_mb=500)
    assert result.outcome == "leak" and "over its limit of 500 MB" in result.signature
    assert psutil.virtual_memory().available > 2 << 30
