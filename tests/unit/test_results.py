"""Results data: round trip, schema check, atomic writing, merging."""

from __future__ import annotations

import json
import os

import pytest

from harness import environment, results
from harness.results import SCHEMA_VERSION, ResultsError, ResultsFile, RunResult


def sample(**changes) -> RunResult:
    fields = dict(
        case="01_missing_main_guard",
        variant="broken",
        profile="windows",
        outcome="crash",
        signature="RuntimeError: An attempt has been made…",
        expected="crash",
        matched=True,
        returncode=1,
        duration_s=3.2,
        stacks={"123": "# pid 123\nThread…"},
    )
    fields.update(changes)
    return RunResult(**fields)


def test_a_result_recorded_before_confined_held_what_its_confinements_saw_reads_as_one():
    older = {**sample().to_json(), "oom_kills": 1, "cgroup_peak_mb": 2047.5}
    older.pop("confined")
    assert RunResult.from_json(older).confined == {"oom_kills": 1, "cgroup_peak_mb": 2047.5}
    unconfined = {**older, "oom_kills": None, "cgroup_peak_mb": None}
    assert RunResult.from_json(unconfined).confined == {}
    assert RunResult.from_json(sample(confined={"oom_kills": 0}).to_json()).confined == {"oom_kills": 0}


def test_round_trip_preserves_every_field(tmp_path):
    path = tmp_path / "r.json"
    original = ResultsFile(
        environment=environment.describe(), results=[sample(), sample(profile="linux", outcome="ok")]
    )
    results.save(path, original)
    loaded = results.load(path)
    assert loaded.environment == original.environment
    assert sorted(loaded.results, key=lambda r: r.key) == sorted(original.results, key=lambda r: r.key)


def test_file_is_indented_sorted_and_versioned(tmp_path):
    path = tmp_path / "r.json"
    results.save(path, ResultsFile(environment={"os": "linux"}, results=[sample()]))
    text = path.read_text()
    data = json.loads(text)
    assert data["schema"] == SCHEMA_VERSION
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"schema": SCHEMA_VERSION + 1, "environment": {}, "results": []}, "schema version"),
        ({"environment": {}, "results": []}, "not a results file"),
        ({"schema": SCHEMA_VERSION, "environment": {}, "results": [{"case": "x"}]}, "damaged"),
        (
            {"schema": SCHEMA_VERSION, "environment": {}, "results": [{**sample().to_json(), "colour": 1}]},
            "damaged",
        ),
    ],
)
def test_unusable_files_are_refused_by_name(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ResultsError, match=message) as error:
        results.load(path)
    assert str(path) in str(error.value)


def test_save_leaves_no_temporary_file_and_replaces_whole(tmp_path):
    path = tmp_path / "r.json"
    results.save(path, ResultsFile(environment={}, results=[sample()]))
    results.save(path, ResultsFile(environment={}, results=[]))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert results.load(path).results == []


def test_record_merges_by_case_variant_and_method(tmp_path):
    path = tmp_path / "r.json"
    results.record(path, [sample(), sample(profile="linux", outcome="ok")], {"run": 1})
    results.record(path, [sample(outcome="hang")], {"run": 2})
    loaded = results.load(path)
    assert {r.profile: r.outcome for r in loaded.results} == {"linux": "ok", "windows": "hang"}
    assert loaded.environment == {"run": 2}


def test_results_filename_names_the_environment():
    env = {"os": "linux", "python": "3.11.7", "torch": "2.13.0+cpu"}
    assert environment.results_filename(env) == "linux-py3.11-torch2.13.0.json"


def test_saved_file_is_readable_by_others(tmp_path):
    path = tmp_path / "r.json"
    results.save(path, ResultsFile(environment={}, results=[]))
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask, "as open() would create it, not mkstemp's 0600"


def test_an_older_schema_is_replaced_by_a_new_run_but_never_read(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"schema": SCHEMA_VERSION - 1, "environment": {}, "results": [{"old": 1}]}))
    with pytest.raises(results.OlderSchemaError):
        results.load(path)
    results.record(path, [sample()], {"run": 1})
    assert [r.key for r in results.load(path).results] == [sample().key]


def test_a_newer_schema_is_never_overwritten(tmp_path):
    path = tmp_path / "r.json"
    newer = json.dumps({"schema": SCHEMA_VERSION + 1, "environment": {}, "results": []})
    path.write_text(newer)
    with pytest.raises(ResultsError, match="schema version"):
        results.record(path, [sample()], {})
    assert path.read_text() == newer


def test_concurrent_records_merge_instead_of_losing_one(tmp_path):
    import threading

    path = tmp_path / "r.json"
    methods = [f"method{i}" for i in range(16)]
    threads = [
        threading.Thread(target=results.record, args=(path, [sample(profile=m)], {"writer": m}))
        for m in methods
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.profile for r in results.load(path).results) == sorted(methods)


def test_outcomes_are_the_enum_in_memory_and_the_same_strings_in_the_file(tmp_path):
    from harness.outcomes import Outcome

    result = sample(expected="")
    assert result.outcome is Outcome.CRASH and result.expected is None
    path = tmp_path / "r.json"
    results.save(path, ResultsFile(environment={}, results=[result, sample(profile="linux")]))
    saved = json.loads(path.read_text())["results"]
    assert [(r["outcome"], r["expected"]) for r in saved] == [("crash", "crash"), ("crash", "")]
    assert results.load(path).results[1].expected is None


def test_an_unknown_outcome_in_a_file_is_refused_by_name(tmp_path):
    path = tmp_path / "r.json"
    data = {
        "schema": SCHEMA_VERSION,
        "environment": {},
        "results": [{**sample().to_json(), "outcome": "boom"}],
    }
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="unknown outcome 'boom'"):
        results.load(path)


@pytest.mark.parametrize(
    ("name", "python", "profile"),
    [("linux-py3.14", "3.14.", "linux-3.14"), ("linux-py3.13", "3.13.", "linux")],
)
def test_the_committed_chroot_results_are_native_runs_of_every_case(name, python, profile):
    """`observe-chroot`'s files (issue 29): that suite's own Python ran every case, both variants,
    under the one profile it runs natively, with nothing emulated."""
    from harness import cases, profiles
    from harness.results import RESULTS_DIR

    (path,) = RESULTS_DIR.glob(f"{name}-torch*.json")
    recorded = results.load(path)
    assert recorded.environment["python"].startswith(python)
    assert profiles.native_profiles(recorded.environment) >= {profile}
    names = {c.name for c in cases.discover()}
    assert {(r.case, r.variant) for r in recorded.results} == {
        (n, v) for n in names for v in ("broken", "fixed")
    }
    assert {r.profile for r in recorded.results} == {profile}
    assert all(not r.emulation for r in recorded.results)
    assert all(r.how.launcher == "chroot" and r.native for r in recorded.results), "launched in its root"
    assert {r.how.python for r in recorded.results} == {recorded.environment["python"]}
    assert all(r.matched for r in recorded.results if r.outcome != "skipped")
