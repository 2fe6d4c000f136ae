"""Measured figures in the prose (harness/site/figures.py): read from a results file and case.toml,
never typed; a figure naming what does not exist fails; skipped runs say so."""

from __future__ import annotations

import pytest

from harness import results
from harness.cases import discover
from harness.results import ResultsFile, RunResult
from harness.site import figures, results_data, wording

LINUX_ENV = {
    "os": "linux",
    "python": "3.11.7",
    "torch": "2.13.0",
    "numpy": "2.4.6",
    "recorded_at": "2026-12-01",
}


def _run(case, variant, profile, outcome="ok", duration=2.0, **more) -> RunResult:
    return RunResult(
        case=case, variant=variant, profile=profile, outcome=outcome, duration_s=duration, **more
    )


def _memory(*growths: float) -> dict:
    workers = {
        str(i): {"baseline_mb": 10.0 + i, "growth_mb": g, "peak_mb": 10 + i + g}
        for i, g in enumerate(growths)
    }
    return {"workers": workers}


def _epochs(*first_batches: float) -> list[dict]:
    return [
        {
            "duration_s": wait + 1.9,
            "first_batch_s": wait,
            "last_batch_s": wait + 1.4,
            "batches": 10,
            "length": 10,
        }
        for wait in first_batches
    ]


@pytest.fixture
def sources(tmp_path):
    runs = [
        _run("13_spawn_startup_cost", "broken", "linux", duration=1.6, loader_epochs=_epochs(0.4, 0.1, 0.1)),
        _run(
            "13_spawn_startup_cost", "broken", "windows", "slow", 118.0, loader_epochs=_epochs(30, 32.2, 32.2)
        ),
        _run(
            "06_memory_growth",
            "broken",
            "linux",
            "leak",
            14.1,
            memory=_memory(75.0, 83.5),
            signature="worker grew 84 MB over its 10 MB baseline (threshold 30 MB)",
        ),
        _run("06_memory_growth", "fixed", "windows", "skipped", None),
    ]
    results.save(tmp_path / "linux-py3.11-torch2.13.0.json", ResultsFile(LINUX_ENV, runs))
    recorded = results_data.load_all(tmp_path)
    return figures.Sources(discover(), recorded, results_data.reference(recorded))


def _fill(text: str, sources, lang: str = "en") -> str:
    with wording.language(lang):
        return figures.figures_only(text, sources, "page.md")


@pytest.mark.parametrize(
    ("span", "figure"),
    [
        ("duration", "1.6–118 s"),
        ("duration profile=windows", "118 s"),
        ("duration case=06 profile=linux", "14.1 s"),
        ("growth case=06 variant=broken profile=linux", "75–84 MB"),
        ("baseline case=06 variant=broken profile=linux", "10–11 MB"),
        ("outcome case=06 variant=broken profile=linux", "`leak`"),
        (
            "signature case=06 variant=broken profile=linux",
            "`worker grew 84 MB over its 10 MB baseline (threshold 30 MB)`",
        ),
        ("wait case=13 variant=broken profile=linux", "0.10 s, 7 %"),
        ("wait case=13 variant=broken profile=windows show=seconds", "32.20 s"),
        ("wait case=13 variant=broken show=share", "7–96 %"),
        ("first-batch case=13 variant=broken profile=linux", "0.40 s"),
        ("shutdown case=13 variant=broken profile=linux", "0.5 s"),
        ("timeout case=04,11,14", "60 s"),
        ("threshold case=06", "30 MB"),
        ("version of=numpy", "2.4.6"),
        ("version of=python file=linux-py3.11", "3.11.7"),
    ],
)
def test_each_kind_reads_its_figure(sources, span, figure):
    assert _fill(f"a <!-- dlp:fig {span} -->old<!-- /dlp:fig --> b", sources) == f"a {figure} b"


def test_the_source_keeps_its_markers_with_the_figure_written_between_them(sources):
    text = "took <!-- dlp:fig duration case=13 profile=linux -->9 s<!-- /dlp:fig -->."
    filled = "took <!-- dlp:fig duration case=13 profile=linux -->1.6 s<!-- /dlp:fig -->."
    assert figures.fill(text, sources, "page.md") == filled


@pytest.mark.parametrize(
    ("span", "why"),
    [
        ("duration profile=solaris", "profile=solaris names no profile"),
        ("duration case=99", "case=99 names no case"),
        ("duration file=windows-py3.12", "file=windows-py3.12 names 0 results files"),
        ("duration case=01", "holds no such run"),
        ("growth case=13 variant=broken profile=linux", "no worker memory samples"),
        ("timeout case=04,13", "timeout differ"),
        ("colour", "unknown kind 'colour'"),
    ],
)
def test_a_figure_naming_what_does_not_exist_fails_naming_it(sources, span, why):
    with pytest.raises(figures.FigureError, match=f"page.md: <!-- dlp:fig .*{why}"):
        _fill(f"<!-- dlp:fig {span} -->x<!-- /dlp:fig -->", sources)


def test_runs_skipped_where_they_were_recorded_say_so_in_the_pages_language(sources):
    span = "<!-- dlp:fig duration case=06 variant=fixed profile=windows -->x<!-- /dlp:fig -->"
    assert "not recorded" in _fill(span, sources, "en")
    assert "未记录" in _fill(span, sources, "zh")


def test_every_figure_in_the_course_is_as_the_committed_results_say():
    """The spans in README.md, docs/ and the cases' READMEs name what exists (nothing fails)."""
    from harness.cases import CASES_DIR
    from harness.commands.figures import markdown_files
    from harness.commands.figures import sources as committed
    from harness.results import RESULTS_DIR

    given = committed(CASES_DIR, RESULTS_DIR)
    spans = 0
    for path in markdown_files(CASES_DIR):
        text = path.read_text(encoding="utf-8")
        spans += len(figures.SPAN.findall(text))
        figures.fill(text, given, str(path))
    assert spans > 40
