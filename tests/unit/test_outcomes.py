"""Classification of recorded outputs (real runs, saved under tests/outputs/)."""

from __future__ import annotations

import pytest

from harness.judge import classify
from harness.outcomes import Outcome
from harness.tracebacks import find_exceptions, root_cause
from tests.conftest import OUTPUTS_DIR


def recorded(name: str) -> str:
    return (OUTPUTS_DIR / f"{name}.txt").read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize(
    ("name", "outcome", "signature"),
    [
        (
            "guard_spawn",
            Outcome.CRASH,
            "RuntimeError: An attempt has been made to start a new process before the current process "
            "has finished its bootstrapping phase.",
        ),
        (
            "guard_forkserver",
            Outcome.CRASH,
            "RuntimeError: An attempt has been made to start a new process before the current process "
            "has finished its bootstrapping phase.",
        ),
        ("open_file_spawn", Outcome.CRASH, "TypeError: cannot pickle '_io.TextIOWrapper' object"),
        (
            "lambda_forkserver",
            Outcome.CRASH,
            "AttributeError: Can't pickle local object 'main.<locals>.<lambda>'",
        ),
        ("worker_raises_fork", Outcome.CRASH, "ValueError: sample 0 is corrupt"),
        (
            "worker_segfault_fork",
            Outcome.CRASH,
            "RuntimeError: DataLoader worker (pid 4084) is killed by signal: Segmentation fault.",
        ),
    ],
)
def test_recorded_crash_signature_is_the_root_cause(name, outcome, signature):
    assert classify(recorded(name), returncode=1, timed_out=False) == (outcome, signature)


def test_guard_output_ends_with_the_consequence_not_the_cause():
    exceptions = find_exceptions(recorded("guard_spawn"))
    assert "exited unexpectedly" in exceptions[-1].line
    assert exceptions[-1].is_consequence
    assert not root_cause(recorded("guard_spawn")).is_consequence


def test_assertion_is_a_wrong_result():
    outcome, signature = classify(recorded("shared_offset_fork"), returncode=1, timed_out=False)
    assert outcome is Outcome.WRONG
    assert signature.startswith("AssertionError: ") and "wrong place in the file" in signature


def test_exit_zero_is_ok_whatever_it_printed():
    assert classify(recorded("worker_raises_fork"), returncode=0, timed_out=False) == (Outcome.OK, "")


def test_timeout_is_a_hang_whatever_the_exit_status():
    assert classify("", returncode=None, timed_out=True)[0] is Outcome.HANG
    assert classify("", returncode=-9, timed_out=True)[0] is Outcome.HANG


def test_signal_without_traceback_names_the_signal():
    assert classify("Fatal Python error: Segmentation fault\n", returncode=-11, timed_out=False) == (
        Outcome.CRASH,
        "killed by SIGSEGV",
    )


def test_no_traceback_falls_back_to_the_last_line():
    assert classify("loading\nout of disk space\n\n", returncode=3, timed_out=False) == (
        Outcome.CRASH,
        "out of disk space",
    )
    assert classify("", returncode=3, timed_out=False) == (Outcome.CRASH, "exit status 3")


def test_only_consequences_gives_the_last_one():
    output = (
        "Traceback (most recent call last):\n  File 'x', line 1\n_queue.Empty\n\n"
        "Traceback (most recent call last):\n  File 'y', line 2\n"
        "RuntimeError: DataLoader worker (pid(s) 12, 13) exited unexpectedly\n"
    )
    assert classify(output, 1, False) == (
        Outcome.CRASH,
        "RuntimeError: DataLoader worker (pid(s) 12, 13) exited unexpectedly",
    )


def test_text_that_merely_looks_like_an_error_is_not_a_traceback():
    output = "epoch 1\nValueError: this line was printed by the script, not raised\n"
    assert find_exceptions(output) == []


def test_an_assertion_inside_a_library_is_a_crash_not_a_wrong_result():
    output = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 9, in <module>\n'
        '  File "/venv/site-packages/torch/cuda/__init__.py", line 403, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    in_library = lambda path: "site-packages" in path  # noqa: E731
    assert classify(output, 1, False, in_library) == (
        Outcome.CRASH,
        "AssertionError: Torch not compiled with CUDA enabled",
    )
    assert (
        classify(
            output.replace("/venv/site-packages/torch/cuda/__init__.py", "/home/me/data.py"),
            1,
            False,
            in_library,
        )[0]
        is Outcome.WRONG
    )


def test_a_line_from_another_process_inside_a_traceback_does_not_hide_its_cause():
    # Two spawned workers and the main process write into one output; here the main process's
    # warning landed between a worker's traceback header and its exception line.
    output = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "<string>", line 1, in <module>',
            "/site-packages/torch/utils/data/dataloader.py:600: UserWarning: This DataLoader will create",
            '  File "<stdlib>/multiprocessing/spawn.py", line 132, in _main',
            "AttributeError: Can't get attribute 'Squares' on <module '__main__' (built-in)>",
            "Traceback (most recent call last):",
            '  File "<stdin>", line 16, in <module>',
            "RuntimeError: DataLoader worker (pid(s) 24215) exited unexpectedly",
        ]
    )
    assert (
        root_cause(output).line
        == "AttributeError: Can't get attribute 'Squares' on <module '__main__' (built-in)>"
    )


def test_callers_ask_the_vocabulary_what_an_outcome_means():
    failures = {o for o in Outcome if o.is_failure}
    assert failures == {Outcome.CRASH, Outcome.HANG, Outcome.WRONG, Outcome.LEAK, Outcome.SLOW, Outcome.ERROR}
    assert {o for o in Outcome if not o.was_judged} == {Outcome.SKIPPED, Outcome.ERROR}
    assert {o for o in Outcome if o.script_raised} == {Outcome.CRASH, Outcome.WRONG}
    assert all(o.style for o in Outcome)


def test_an_outcome_is_named_as_in_the_json_and_an_unknown_name_lists_the_known_ones():
    assert Outcome.named("hang") is Outcome.HANG and f"{Outcome.HANG}" == "hang"
    with pytest.raises(ValueError, match="unknown outcome 'explodes' \\(one of ok, crash, hang"):
        Outcome.named("explodes")


def test_the_windows_interpreters_library_under_wine_is_a_library_and_is_scrubbed():
    """Case 17 under Wine: the daemonic-children assertion is the standard library's (a crash), not
    the script's own assert (a wrong result)."""
    from harness import judge
    from harness.run.launch import wine_env as wine

    lib = wine.windows_path(wine.root() / "cp313" / "Lib" / "multiprocessing" / "process.py")
    script = wine.windows_path(judge.CASES_DIR / "17_pool_inside_worker" / "broken.py")
    output = (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 20, in __getitem__\n'
        f'  File "{lib}", line 118, in start\n'
        "    assert not _current_process._config.get('daemon'), \\\n"
        "AssertionError: daemonic processes are not allowed to have children\n"
    )
    outcome, _ = classify(output, 1, False, judge.is_library)
    assert outcome is Outcome.CRASH
    assert not judge.is_library(script)
    scrubbed = judge.scrub(output)
    assert "<windows-python>\\cp313\\Lib\\multiprocessing" in scrubbed and "<project>\\cases\\17_" in scrubbed
