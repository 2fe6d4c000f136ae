"""Case 04's hang as the harness records it: where each process waits, and nothing left behind."""

from __future__ import annotations

import contextlib

import psutil
import pytest

pytestmark = pytest.mark.linux


@pytest.fixture(scope="module")
def hang(matrix_results):
    return matrix_results[("04_opencv_thread_deadlock", "broken", "linux")]


def test_classified_as_hang_within_timeout_plus_five(hang, catalog):
    case = next(c for c in catalog if c.name == "04_opencv_thread_deadlock")
    assert hang.outcome == "hang"
    assert hang.duration_s < case.timeout + 5


def test_python_stacks_show_workers_stuck_in_set_num_threads(hang):
    workers = [text for text in hang.stacks.values() if "_worker_loop" in text]
    assert len(workers) == 2
    for text in workers:
        current = text.split("Current thread")[1]
        innermost = current.splitlines()[1]
        assert "broken.py" in innermost and "in limit_opencv_threads" in innermost, text


def test_native_stacks_show_pthread_cond_destroy_or_say_why_not(hang):
    if hang.native_stacks_note.startswith("native stacks not available"):
        assert hang.native_stacks == {}
        return
    workers = [text for text in hang.native_stacks.values() if "limit_opencv_threads" in text]
    assert len(workers) == 2, hang.native_stacks_note
    assert all("pthread_cond_destroy" in text for text in workers)


def test_no_process_of_the_hung_run_is_left(hang):
    for pid in map(int, hang.stacks):
        with contextlib.suppress(psutil.NoSuchProcess):
            assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
