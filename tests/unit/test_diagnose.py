"""Matching runs against the catalog: evidence is vetoed only by the same cause elsewhere."""

from __future__ import annotations

from harness.cases import discover
from harness.diagnose import runtime_evidence
from harness.results import RunResult

CASES = {case.name: case for case in discover()}
LAMBDA = "AttributeError: Can't pickle local object 'main.<locals>.<lambda>'"


def run(profile: str, method: str, outcome: str, signature: str = "") -> RunResult:
    return RunResult(
        case="train.py",
        variant="check",
        profile=profile,
        start_method=method,
        outcome=outcome,
        signature=signature,
    )


def spawn_profiles_crash(signature: str) -> list[RunResult]:
    return [
        run(p, m, "crash", signature)
        for p, m in (("linux-3.14", "forkserver"), ("windows", "spawn"), ("macos", "spawn"))
    ]


def test_a_failure_with_another_cause_elsewhere_is_no_veto():
    runs = [
        run("linux", "fork", "crash", "ZeroDivisionError: division by zero"),
        *spawn_profiles_crash(LAMBDA),
    ]
    evidence, _ = runtime_evidence(CASES["03_lambda_collate"], runs)
    assert [line.split(":")[0] for line in evidence] == ["linux-3.14", "windows", "macos"]


def test_the_same_cause_elsewhere_vetoes():
    runs = [run("linux", "fork", "crash", LAMBDA), *spawn_profiles_crash(LAMBDA)]
    assert runtime_evidence(CASES["03_lambda_collate"], runs) == ([], ""), "not specific to pickling workers"


def test_exit_status_says_when_nothing_could_be_judged():
    from harness.commands.check import exit_status

    skipped = [run(p, m, "skipped") for p, m in (("linux", "fork"), ("windows", "spawn"))]
    assert exit_status(skipped, [], []) == 3, "every run skipped: nothing judged, nothing found"
    assert exit_status(skipped, ["a lint finding"], []) == 1, "a static finding still counts"
    assert exit_status([*skipped, run("macos", "spawn", "ok")], [], []) == 0
    assert exit_status([*skipped, run("macos", "spawn", "crash", "X")], [], []) == 1
    assert exit_status([run("linux", "fork", "error")], [], []) == 3, "the harness failing judges nothing"


def test_a_wrong_result_confirms_a_lint_finding_and_alone_names_nothing():
    from harness.diagnose import PITFALL, UNJUDGED, diagnose
    from harness.lint import lint_paths

    case = CASES["18_logging_lost_in_workers"]
    findings = lint_paths([case.script("broken")])
    lost = "AssertionError: 0 of 4 records"
    spawned = (("linux-3.14", "forkserver"), ("windows", "spawn"), ("macos", "spawn"))
    runs = [run("linux", "fork", "ok"), *[run(p, m, "wrong", lost) for p, m in spawned]]
    found = {d.case.name: d for d in diagnose(list(CASES.values()), runs, findings)}
    assert found[case.name].status == PITFALL and len(found[case.name].runtime) == 3
    assert case.name not in {d.case.name for d in diagnose(list(CASES.values()), runs, [])}
    clean = [run(p, m, "ok") for p, m in (("linux", "fork"), ("windows", "spawn"))]
    suspected = {d.case.name: d for d in diagnose(list(CASES.values()), clean, findings)}[case.name]
    assert suspected.status == UNJUDGED, "runs without an assert or a logged record prove nothing"
    assert "no DataLoader worker logged a record" in suspected.why
    printed = _printed_check(clean, findings, [suspected])
    assert "Risk(s), not measured here: 1 static finding" in printed, printed
    assert "risk, not measured: no DataLoader worker logged a record" in printed, "never reads as measured"
    assert "1 risk(s) not measured here (above)" in printed, printed


def _printed_check(results, findings, found) -> str:
    import io

    from rich.console import Console

    from harness.commands.check import _print_check

    console = Console(file=io.StringIO(), width=400)
    _print_check(console, results, findings, found)
    return console.file.getvalue()


def test_check_json_lists_every_finding_with_its_status_and_pitfalls_alone_in_the_old_key():
    from pathlib import Path

    from harness.cases import discover
    from harness.commands.check import CHECK_JSON_SCHEMA, _as_json
    from harness.diagnose import FINE, PITFALL, RISK, Diagnosis

    cases = {case.name[:2]: case for case in discover()}
    found = [
        Diagnosis(cases["03"], status=PITFALL),
        Diagnosis(cases["06"], status=FINE, why="the largest list has 128 items"),
        Diagnosis(cases["13"], status=RISK, why="no second epoch ran"),
    ]
    report = _as_json(Path("train.py"), [], [], found)
    assert CHECK_JSON_SCHEMA == 2 and report["schema"] == 2
    assert [(f["case"][:2], f["status"]) for f in report["findings"]] == [
        ("03", "pitfall"),
        ("06", "fine"),
        ("13", "risk"),
    ]
    assert [f["case"][:2] for f in report["pitfalls"]] == ["03"], "the alias holds pitfalls only"


def _on(result: RunResult, python: str) -> RunResult:
    import dataclasses

    from harness.run.launch import How

    return dataclasses.replace(result, how=How("native", f"CPython {python}", python, False))


GENERATOR = "TypeError: cannot pickle 'generator' object"


def test_runs_that_split_by_python_version_name_the_pitfall_and_say_where_it_shows():
    from harness.diagnose import PITFALL, diagnose

    runs = [
        _on(run("linux", "fork", "ok"), "3.11.7"),
        _on(run("linux-3.14", "forkserver", "crash", GENERATOR), "3.11.7"),
        _on(run("windows-emulated", "spawn", "crash", GENERATOR), "3.11.7"),
        _on(run("windows", "spawn", "ok"), "3.13.2"),
    ]
    found = {d.case.name: d for d in diagnose(list(CASES.values()), runs, [])}["02_open_file_handle"]
    assert found.status == PITFALL and [line.split(":")[0] for line in found.runtime] == [
        "linux-3.14", "windows-emulated"
    ]  # fmt: skip
    assert found.versions == (
        "shows under Python 3.11.7 (linux-3.14: crash, windows-emulated: crash); "
        "not under Python 3.13.2 (windows: ok)"
    )
    assert found.to_json()["versions"] == found.versions


def test_a_run_that_does_not_show_it_under_the_same_python_version_still_vetoes():
    runs = [
        _on(run("linux-3.14", "forkserver", "crash", GENERATOR), "3.11.7"),
        _on(run("windows-emulated", "spawn", "ok"), "3.11.7"),
        _on(run("windows", "spawn", "ok"), "3.13.2"),
    ]
    assert runtime_evidence(CASES["02_open_file_handle"], runs) == ([], "")
    unrecorded = [run("linux-3.14", "forkserver", "crash", GENERATOR), run("windows", "spawn", "ok")]
    no_split = runtime_evidence(CASES["02_open_file_handle"], unrecorded)
    assert no_split == ([], ""), "no version recorded: no split"


def test_runs_that_agree_carry_no_version_note():
    runs = [_on(r, "3.11.7") for r in spawn_profiles_crash(LAMBDA)] + [
        _on(run("x", "spawn", "crash", LAMBDA), "3.13.2")
    ]
    evidence, split = runtime_evidence(CASES["03_lambda_collate"], runs)
    assert evidence and split == ""
