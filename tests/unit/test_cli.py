"""`python -m harness` from the outside: listing, bad input ending in one line and exit 2, and a
light start (no torch, no numpy) for the commands that run no code."""

from __future__ import annotations

import argparse
import dataclasses
import io
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harness.commands import check, run
from harness.commands import script as script_command
from harness.outcomes import Outcome
from harness.results import RunResult
from tests.conftest import ROOT, harness, one_line_error

GOOD_TOML = (ROOT / "cases" / "03_lambda_collate" / "case.toml").read_text()


def make_case(root: Path, toml: str | None, scripts=("broken.py", "fixed.py"), name="01_demo") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if toml is not None:
        (folder / "case.toml").write_text(toml)
    for script in scripts:
        (folder / script).write_text("print('hello')\n")
    return root


def test_list_names_every_case():
    completed = harness("list")
    assert completed.returncode == 0, completed.stderr
    for folder in ("01_missing_main_guard", "02_open_file_handle", "03_lambda_collate"):
        assert folder in completed.stdout


def test_unknown_case_lists_the_valid_ones():
    line = one_line_error(harness("run", "99_nope", "--no-record"))
    assert "unknown case '99_nope'" in line
    assert "01_missing_main_guard" in line and "03_lambda_collate" in line


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--start-method", "fork,vfork"], "unknown start method 'vfork'"),
        (["--timeout", "0"], "--timeout must be positive"),
        (["--timeout", "-3"], "--timeout must be positive"),
        (["--timeout", "soon"], "--timeout must be a number"),
        (["--jobs", "0"], "--jobs must be a whole number"),
        (["--variant", "weird"], "invalid choice: 'weird'"),
    ],
)
def test_bad_run_options(args, named):
    assert named in one_line_error(harness("run", "1", "--no-record", *args))


def test_malformed_case_toml(tmp_path):
    cases = make_case(tmp_path, "title = 'unterminated")
    line = one_line_error(harness("--cases-dir", str(cases), "list"))
    assert "case.toml: malformed TOML" in line and "01_demo" in line


def test_incomplete_case_toml(tmp_path):
    incomplete = GOOD_TOML.split("[expect.fixed.spawn]")[0]
    line = one_line_error(harness("--cases-dir", str(make_case(tmp_path, incomplete)), "list"))
    assert "[expect.fixed.spawn]: missing" in line


def test_unknown_outcome_in_case_toml(tmp_path):
    bad = GOOD_TOML.replace(
        '[expect.broken.spawn]\noutcome = "crash"', '[expect.broken.spawn]\noutcome = "explodes"'
    )
    line = one_line_error(harness("--cases-dir", str(make_case(tmp_path, bad)), "list"))
    assert "unknown outcome 'explodes'" in line


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (
            "[memory]\nsample_interval_s = 0.1\nleak_threshold_mb = -5\n",
            "'leak_threshold_mb' must be positive",
        ),
        ("[memory]\nleak_threshold_mb = 40\n", "[memory]: missing key 'sample_interval_s'"),
        ("memory_limit_mb = 'lots'\n", "'memory_limit_mb' must be a number"),
    ],
)
def test_bad_memory_settings(tmp_path, extra, named):
    toml = extra + GOOD_TOML if not extra.startswith("[") else GOOD_TOML + "\n" + extra
    line = one_line_error(harness("--cases-dir", str(make_case(tmp_path, toml)), "list"))
    assert named in line


def test_unverified_must_be_a_boolean(tmp_path):
    bad = GOOD_TOML.replace("[expect.broken.spawn]\n", '[expect.broken.spawn]\nunverified = "yes"\n')
    line = one_line_error(harness("--cases-dir", str(make_case(tmp_path, bad)), "list"))
    assert "'unverified' must be true or false" in line


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ("timeout = 60", "timeout = 60\ntimout = 5", "unknown key 'timout'"),
        (
            '[expect.fixed.fork]\noutcome = "ok"',
            '[expect.fixed.fork]\noutcome = "ok"\nsignture = "x"',
            "unknown key 'signture'",
        ),
        ("[diagnose]\n", '[diagnose]\nstack = "x"\n', "unknown key 'stack'"),
    ],
)
def test_misspelt_keys_are_named(tmp_path, old, new, named):
    assert old in GOOD_TOML
    line = one_line_error(
        harness("--cases-dir", str(make_case(tmp_path, GOOD_TOML.replace(old, new))), "list")
    )
    assert named in line


def test_missing_script(tmp_path):
    line = one_line_error(harness("--cases-dir", str(make_case(tmp_path, GOOD_TOML, ("broken.py",))), "list"))
    assert "fixed.py: missing script" in line


def test_missing_own_script():
    line = one_line_error(harness("script", "no/such/train.py"))
    assert "no such script: no/such/train.py" in line


def test_damaged_results_file_is_refused_before_running(tmp_path):
    damaged = tmp_path / "results.json"
    damaged.write_text("{not json")
    line = one_line_error(harness("run", "1", "--results", str(damaged)))
    assert str(damaged) in line and "damaged" in line


LIGHT_START = """
import sys
from harness.cli import main
status = main(sys.argv[1:])
heavy = sorted(m for m in ("torch", "numpy", "matplotlib", "harness.bench.steps") if m in sys.modules)
print("imported:", ",".join(heavy) or "nothing heavy")
sys.exit(status)
"""


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["lint", "cases/09_duplicated_randomness/broken.py"], 1),
        (["lint", "--notebook", "cases"], 1),
        (["list"], 0),
        (["run", "1", "--timeout", "soon"], 2),
        (["check", "no/such.py"], 2),
        (["bench", "--workload", "gpu"], 2),
        (["script", "cases/01_missing_main_guard/broken.py", "--jobs", "0"], 2),
        (["nonsense"], 2),
    ],
)
def test_commands_that_run_no_code_leave_torch_and_numpy_unimported(args, status):
    completed = subprocess.run(
        [sys.executable, "-c", LIGHT_START, *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == status, completed.stdout + completed.stderr
    assert completed.stdout.strip().splitlines()[-1] == "imported: nothing heavy"


def test_the_light_start_test_would_see_torch():
    """The check above can fail: a command that imports numpy is caught by it."""
    code = LIGHT_START.replace("status = main", "import numpy\nstatus = main")
    completed = subprocess.run(
        [sys.executable, "-c", code, "list"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert completed.stdout.strip().splitlines()[-1] == "imported: numpy"


def test_causes_and_leftovers_are_printed_as_text_not_markup():
    """A cause such as `KeyError: '[x]'` or a stray `[/]` prints as it is, in every command."""
    console = Console(file=io.StringIO(), width=300)
    odd = "KeyError: '[x]' [/] [bold]"
    result = RunResult(
        case="c",
        variant="v",
        profile="linux",
        outcome=Outcome.CRASH,
        signature=odd,
        output_tail=odd,
        shm_leftovers=[odd],
    )
    run._print_not_ok(console, [result])
    script_command.print_result(console, result)
    check._print_check(console, [result], [], [])
    printed = console.file.getvalue()
    assert printed.count(odd) >= 6, printed


def test_check_says_why_a_hang_without_native_stacks_names_no_case():
    console = Console(file=io.StringIO(), width=300)
    note = "native stacks not available: py-spy is not installed (pip install py-spy)"
    hang = RunResult(case="c", variant="v", profile="linux", outcome=Outcome.HANG, signature="hang: …")
    check._print_check(console, [hang], [], [])
    assert note not in console.file.getvalue()
    check._print_check(console, [dataclasses.replace(hang, native_stacks_note=note)], [], [])
    assert note in console.file.getvalue(), "the user learns what would show the mechanism"


def test_run_says_how_much_time_is_left_from_the_pace_so_far():
    from harness.commands.run import time_left

    assert time_left(60.0, 10, 76) == "about 7 min left"
    assert time_left(10.0, 10, 20) == "about 10 s left"
    assert time_left(1.0, 10, 11) == "about 5 s left"
    assert time_left(99.0, 76, 76) == "done"


def test_each_command_lives_in_the_module_of_its_name():
    from harness import cli

    parser = cli.build_parser()
    (subcommands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert tuple(subcommands.choices) == cli.COMMAND_NAMES
    modules = {command.__name__.rsplit(".", 1)[1] for command in cli.COMMANDS}
    assert modules == {name.replace("-", "_") for name in cli.COMMAND_NAMES}
