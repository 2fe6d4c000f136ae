"""Experiments the course quotes (harness/experiments.py): declared in TOML, recorded as JSON, and
quoted by the pages through figure spans (harness/site/experiment_figures.py)."""

from __future__ import annotations

import dataclasses

import pytest

from harness import experiments
from harness.cases import discover
from harness.outcomes import Outcome
from harness.results import RunResult
from harness.site import figures, wording

DECLARED = """
[throughput]
about = "two workers, by start method"
script = "tests/scripts/openmp_worker_throughput.py"
timeout = 60
repeat = 2
measure = { samples_per_s = 'then ([\\d.,]+) samples/s' }
runs = [
    { label = "fork-1", args = ["fork", "1"] },
    { label = "fork-2", args = ["fork", "2"], timeout = 30, repeat = 1 },
]
"""


def _declared(tmp_path, text: str = DECLARED) -> dict:
    path = tmp_path / "experiments.toml"
    path.write_text(text, encoding="utf-8")
    return experiments.declared(path)


def test_a_run_takes_the_experiments_settings_where_it_has_none_of_its_own(tmp_path):
    fork_1, fork_2 = _declared(tmp_path)["throughput"].runs
    assert (fork_1.args, fork_1.repeat, fork_1.timeout_s, fork_1.profile) == (("fork", "1"), 2, 60.0, "linux")
    assert (fork_2.repeat, fork_2.timeout_s) == (1, 30.0)
    assert fork_1.script == experiments.ROOT / "tests/scripts/openmp_worker_throughput.py"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (("openmp_worker_throughput.py", "no_such_script.py"), "no script"),
        (('about = "two workers, by start method"\n', ""), "KeyError: 'about'"),
        (('label = "fork-2"', 'label = "fork-1"'), "two runs have the same label"),
        (("then ([\\d.,]+)", "then ([\\d.,]+"), "error: missing \\)"),
    ],
)
def test_a_bad_declaration_is_refused_naming_the_experiment(tmp_path, change, named):
    with pytest.raises(experiments.ExperimentError, match=r"\[throughput\].*" + named):
        _declared(tmp_path, DECLARED.replace(*change))


def test_every_number_a_pattern_finds_is_measured_thousands_separators_dropped(tmp_path):
    experiment = _declared(tmp_path)["throughput"]
    output = "epoch 0: then 1,240.5 samples/s\nepoch 1: then 360.0 samples/s\n"
    assert experiment.measured(output) == {"samples_per_s": [1240.5, 360.0]}
    assert experiment.measured("hung") == {"samples_per_s": []}


def test_the_declared_experiments_of_the_course_can_all_be_run():
    declared = experiments.declared()  # the real file: every script exists, every pattern compiles
    assert {"openmp_worker_throughput", "shared_file_offset", "opencv_fork_hang"} <= set(declared)


def test_a_recorded_experiment_is_read_back_with_each_runs_measurements(tmp_path):
    experiment = _declared(tmp_path)["throughput"]
    fork_1, fork_2 = experiment.runs
    ran = RunResult(case="throughput", variant="fork-1", profile="linux", outcome=Outcome.OK, duration_s=3.0)
    observed = [
        (fork_1, dataclasses.replace(ran, output_tail="then 240.0 samples/s\nthen 300.5 samples/s")),
        (fork_1, dataclasses.replace(ran, output_tail="then 360.0 samples/s")),
        (fork_2, dataclasses.replace(ran, variant="fork-2", outcome=Outcome.HANG, output_tail="")),
    ]
    folder = tmp_path / "recorded"
    experiments.record(experiment, observed, experiments.recorded_path("throughput", folder))
    recorded = experiments.load_recorded(folder)["throughput"]
    assert recorded["command"] == "python -m harness experiment throughput"
    assert [r["measured"]["samples_per_s"] for r in recorded["runs"]] == [[240.0, 300.5], [360.0], []]
    assert [r["outcome"] for r in recorded["runs"]] == ["ok", "ok", "hang"]
    assert recorded["environment"]["python"]


def test_a_recorded_file_of_another_schema_is_refused_naming_it(tmp_path):
    (tmp_path / "old.json").write_text('{"schema": 0, "runs": []}', encoding="utf-8")
    with pytest.raises(experiments.ExperimentError, match=r"old\.json: schema 0"):
        experiments.load_recorded(tmp_path)


@pytest.fixture
def sources():
    runs = [
        {"label": "fork-1", "outcome": "ok", "measured": {"samples_per_s": [240.4, 300.0], "wrong": [278.0]}},
        {"label": "fork-1", "outcome": "ok", "measured": {"samples_per_s": [359.6], "wrong": [1701.0]}},
        {"label": "fork-2", "outcome": "hang", "measured": {"samples_per_s": []}},
        {"label": "fork-2", "outcome": "ok", "measured": {"samples_per_s": [0.054]}, "timeout_s": 30.0},
        {"label": "late", "outcome": "crash", "signature": "FileNotFoundError: [Errno 2]", "measured": {}},
        {"label": "late", "outcome": "crash", "signature": "FileNotFoundError: [Errno 2]", "measured": {}},
    ]
    recorded = {"runs": runs, "environment": {"python": "3.11.7"}}
    return figures.Sources(discover(), [], None, {"throughput": recorded})


def _fill(text: str, sources, lang: str = "en") -> str:
    with wording.language(lang):
        return figures.figures_only(text, sources, "page.md")


@pytest.mark.parametrize(
    ("span", "en", "zh"),
    [
        ("experiment name=throughput run=fork-1 key=samples_per_s decimals=0", "240–360", "240–360"),
        ("experiment name=throughput run=fork-1 key=samples_per_s unit=/s", "240.4–359.6 /s", None),
        ("experiment name=throughput run=fork-2 key=samples_per_s unit=s", "0.05 s", "0.05 s"),
        ("experiment name=throughput run=fork-1 key=wrong show=list", "278, 1,701", "278、1,701"),
        ("experiment-count name=throughput run=fork-2 outcome=hang", "1 of 2", "2 次中 1 次"),
        ("experiment-count name=throughput run=fork-1 outcome=hang", "0 of 2", "2 次中 0 次"),
        ("experiment name=throughput run=fork-2 key=timeout_s unit=s", "30 s", "30 s"),
        ("experiment-version name=throughput of=python", "3.11.7", "3.11.7"),
        ("experiment-signature name=throughput run=late", "`FileNotFoundError: [Errno 2]`", None),
    ],
)
def test_an_experiment_figure_is_what_its_recorded_runs_measured(sources, span, en, zh):
    text = f"<!-- dlp:fig {span} -->typed by hand<!-- /dlp:fig -->"
    assert _fill(text, sources) == en
    if zh:
        assert _fill(text, sources, "zh") == zh


@pytest.mark.parametrize(
    ("span", "named"),
    [
        ("experiment name=nothing run=fork-1 key=wrong", "name=nothing names no recorded experiment"),
        ("experiment name=throughput run=spawn-1 key=wrong", "run=spawn-1 names no run of throughput"),
        ("experiment name=throughput run=fork-2 key=wrong", "key=wrong was measured in no run"),
        ("experiment-count name=throughput run=fork-2", "names the outcome"),
        ("experiment-version name=throughput of=opencv", "records opencv"),
        ("experiment-signature name=throughput run=fork-2", "recorded no one signature"),
    ],
)
def test_an_experiment_figure_naming_what_was_not_recorded_fails_the_build(sources, span, named):
    with pytest.raises(figures.FigureError, match=named):
        _fill(f"<!-- dlp:fig {span} -->1<!-- /dlp:fig -->", sources)


def test_a_run_with_replace_runs_an_edited_copy_and_the_script_stays_as_it_was(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("setup()\npause()\ntrain()\n", encoding="utf-8")
    declared = _declared(
        tmp_path,
        f'[what_if]\nabout = "x"\nscript = "{script.as_posix()}"\n'
        'runs = [{ label = "no-pause", replace = [["pause()\\n", ""]] }]\n',
    )
    (run,) = declared["what_if"].runs
    folder = tmp_path / "copy"
    folder.mkdir()
    assert run.edited(folder).read_text(encoding="utf-8") == "setup()\ntrain()\n"
    assert script.read_text(encoding="utf-8") == "setup()\npause()\ntrain()\n"


def test_a_replace_whose_text_the_script_lacks_is_refused(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("train()\n", encoding="utf-8")
    text = f'[what_if]\nabout = "x"\nscript = "{script.as_posix()}"\n'
    text += 'runs = [{ label = "a", replace = [["pause()", ""]] }]\n'
    with pytest.raises(experiments.ExperimentError, match=r"train\.py has no 'pause\(\)' to replace"):
        _declared(tmp_path, text)


def test_a_run_with_memory_mb_is_confined_and_its_cgroup_peak_recorded(tmp_path):
    """`memory_mb` (an experiment's or a run's) reaches the run as its memory cgroup, and the
    recorded file says the limit and the peak."""
    declared = _declared(
        tmp_path,
        '[limit]\nabout = "x"\nscript = "cases/21_memory_limit_dataset_copies/broken.py"\nmemory_mb = 2048\n'
        'runs = [{ label = "confined" }, { label = "smaller", memory_mb = 1024 }]\n',
    )
    confined, smaller = declared["limit"].runs
    assert (confined.memory_mb, smaller.memory_mb) == (2048.0, 1024.0)
    ran = RunResult(case="limit", variant="confined", profile="linux", outcome=Outcome.OK, duration_s=3.0)
    path = experiments.recorded_path("limit", tmp_path)
    experiments.record(
        declared["limit"], [(confined, dataclasses.replace(ran, confined={"cgroup_peak_mb": 1337.0}))], path
    )
    (run,) = experiments.load_recorded(tmp_path)["limit"]["runs"]
    assert (run["memory_cgroup_mb"], run["cgroup_peak_mb"]) == (2048.0, 1337.0)
