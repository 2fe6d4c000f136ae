"""The documentation site: a strict build from the recorded results, its failure modes, and a real
browser loading the pages (Debian's chromium and chromedriver)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from tests.site_results import UNDER_WINE, how, results_fixture

pytest.importorskip("mkdocs", reason="the docs extra is not installed")


from mkdocs.exceptions import PluginError

from harness.cases import discover
from harness.site import hook, pages


def test_unknown_placeholder_fails_with_its_name():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="comparison.md"))
    with pytest.raises(PluginError, match=r"comparison\.md: unknown placeholder 'dlp:no-such-table'"):
        hook.on_page_markdown("text <!-- dlp:no-such-table --> text", page, None, None)


PAGES = ["", "comparison/", "cases/04_opencv_thread_deadlock/", "bench/", "start-method/", "cheatsheet/"]


PAGES += [f"zh/{path}" for path in PAGES] + ["glossary/", "zh/glossary/"]


def test_a_results_file_from_windows_is_a_column_of_its_own(tmp_path):
    import re

    from harness import confirmations
    from harness.site import columns, comparison, results_data

    recorded = results_fixture(tmp_path)
    reference = results_data.reference(recorded)
    assert reference.system == "linux"
    found = columns.columns(reference, recorded)
    assert [(c.system_name(), c.kind, c.python) for c in found] == [
        ("Linux", "native", "3.11.7"),
        ("Windows", "native", "3.12.7"),  # observed on Windows, first in its group
        ("Windows", "wine", "3.13.2"),
        ("Windows", "emulated", ""),
    ]

    def confirmed(*key):
        return confirmations.confirmed(*key, results_dir=tmp_path)

    table = comparison.table(discover(), found, "../", confirmed=confirmed)
    head, body = table.split("</thead>")[0], table.split("</thead>")[1]
    assert re.findall(r'colspan="(\d)"[^>]*>(\w+)<', head) == [("1", "Linux"), ("3", "Windows")]
    assert "observed: Windows 11 · Python 3.12.7 · torch 2.13.0" in head, "the whole story in the tooltip"
    assert f"{UNDER_WINE}, on Linux" in head and "emulated on Linux, Python 3.11.7" in head
    rows = {
        re.search(r'href="../cases/(\w+)/"', row)[1]: row.split("<td")[1:] for row in body.split("<tr>")[1:]
    }
    guard = rows["01_missing_main_guard"]
    assert "dlp-crash" in guard[1] and "dlp-crash" in guard[3], "observed and emulated, side by side"
    assert "not recorded" in guard[2], "an emulated run is never shown in the Wine column"
    assert "†" not in guard[3], "case 01 has no expectation of its own for windows"
    descriptors = rows["12_too_many_open_files"]
    for cell in (descriptors[2], descriptors[3]):
        assert "dlp-ok" in cell and "†" in cell and "not yet observed on Windows" in cell
    assert "not recorded" in descriptors[1], "nothing is merged into a column it was not observed for"
    assert 'data-label="Windows · Python 3.12.7 · spawn · observed"' in descriptors[1], (
        "a card names its column"
    )


def test_a_native_run_that_matched_confirms_a_profile_expectation(tmp_path):
    from harness import confirmations, results
    from harness.results import ResultsFile, RunResult

    native = RunResult(case="12_too_many_open_files", variant="broken", profile="windows", outcome="ok",
                       how=how("", "3.12.7"))  # fmt: skip
    emulated = RunResult(**{**native.__dict__, "emulation": "spawn on Linux", "how": how("spawn on Linux")})
    windows_env = {"os": "windows", "python": "3.12.7"}
    results.save(tmp_path / "emulated.json", ResultsFile({"os": "linux", "python": "3.11.7"}, [emulated]))
    results.save(tmp_path / "unmatched.json", ResultsFile(windows_env, [native]))
    assert not confirmations.confirmed("windows", "12_too_many_open_files", "broken", results_dir=tmp_path)
    native = dataclasses.replace(native, matched=True)
    results.save(tmp_path / "windows.json", ResultsFile(windows_env, [native]))
    confirmations._confirmed.cache_clear()
    assert confirmations.confirmed("windows", "12_too_many_open_files", "broken", results_dir=tmp_path)
    assert not confirmations.confirmed("macos", "12_too_many_open_files", "broken", results_dir=tmp_path)


def test_the_overhead_shows_the_passes_behind_its_means():
    from harness.site import bench_page

    spent = {
        "runs": 78,
        "cases": ["01_missing_main_guard"],
        "methods": ["fork"],
        "full_matrix": True,
        "parallel": 2,
        "harness_s": 192.3,
        "plain_s": 198.3,
        "added": -0.0303,
        "harness_passes_s": [196.3, 188.2],
        "plain_passes_s": [197.5, 199.1],
        "hang_latency": [{"run": "04 broken fork", "timeout_s": 20.0, "reported_after_s": 20.6}],
    }
    text = bench_page.overhead({"overhead_full_matrix": spent})
    assert "the harness added **-3.0%**" in text
    assert "harness 196.3, 188.2 s; plain loop 197.5, 199.1 s" in text
    assert "| 04 broken fork | 20 s | 20.6 s |" in text
    assert "own process" not in text  # recorded before the harness's CPU time was
    text = bench_page.overhead(
        {"overhead_full_matrix": {**spent, "harness_cpu_s": [6.5, 7.0], "harness_cpu_share": 0.0175}}
    )
    assert "The harness's own process used 6.5, 7.0 s of CPU per pass, 1.8% of the CPUs' time." in text
    single = bench_page.overhead({"overhead": {**spent, "harness_passes_s": [1.0], "plain_passes_s": [1.0]}})
    assert "passes each" not in single


CHILD_EOF = """\
Traceback (most recent call last):
  File "Z:\\\\case\\\\broken.py", line 30, in <module>
AttributeError: Can't get local object 'main.<locals>.<lambda>'
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "Z:\\\\python\\\\Lib\\\\multiprocessing\\\\spawn.py", line 132, in _main
EOFError: Ran out of input
Traceback (most recent call last):
  File "<string>", line 1, in <module>
EOFError: Ran out of input
"""


def test_a_case_page_says_what_windows_own_binaries_printed_under_wine(tmp_path):
    from harness import results
    from harness.results import ResultsFile, RunResult
    from harness.site import results_data, windows_seen

    case = next(c for c in discover() if c.name == "03_lambda_collate")
    broken = RunResult(
        case=case.name,
        variant="broken",
        profile="windows",
        outcome="crash",
        emulation=UNDER_WINE,
        how=how(UNDER_WINE),
        output_tail=CHILD_EOF,
        duration_s=16.5,
        signature="AttributeError: Can't get local object",
    )
    fixed = dataclasses.replace(
        broken, variant="fixed", outcome="ok", output_tail="", duration_s=0.0, signature=""
    )
    emulated = RunResult(
        **{
            **broken.__dict__,
            "profile": "windows-emulated",
            "emulation": "spawn on Linux",
            "how": how("spawn on Linux"),
        }
    )
    env = {"os": "linux", "python": "3.11.7", "recorded_at": "2026-12-02"}
    results.save(tmp_path / "wine.json", ResultsFile(env, [broken, fixed]))
    results.save(tmp_path / "emulated.json", ResultsFile(env, [emulated]))
    with_wine, emulated_only = (results_data.load_all(tmp_path)[i] for i in (1, 0))
    text = windows_seen.block(case, with_wine)
    assert UNDER_WINE in text and "`broken.py`: **crash** after 16 s." in text
    assert "Can't get local object 'main.<locals>.<lambda>'\n    EOFError: Ran out of input\n" in text
    assert text.count("EOFError") == 1, "each error line once"
    assert "`fixed.py`: **ok**" in text
    assert windows_seen.block(case, emulated_only) == "", "an emulated run never speaks for Windows"
    page = pages.case_page(case)
    assert page.index("<!-- dlp:on-windows -->") < page.index("## Why") and page.count("dlp:on-windows") == 1


def test_every_cell_where_a_real_interpreter_corrected_the_emulation_is_listed(tmp_path):
    from harness import results
    from harness.results import ResultsFile, RunResult
    from harness.site import differences, results_data

    def run(case, profile, outcome, signature="", emulation=""):
        return RunResult(case=case, variant="broken", profile=profile, outcome=outcome, signature=signature,
                         emulation=emulation, how=how(emulation))  # fmt: skip

    emulated = "forkserver on Linux, Python 3.11"
    SHM, DIRS = (
        "RuntimeError: unable to allocate shared memory(shm) for file",
        "AssertionError: made 2 run directories:",
    )
    here = [
        run("03_lambda_collate", "linux", "ok"),
        run(
            "03_lambda_collate", "linux-3.14", "crash", "AttributeError: Can't pickle local object", emulated
        ),
        run("12_too_many_open_files", "linux-3.14", "crash", "RuntimeError: Too many open files", emulated),
        run(
            "16_dev_shm_too_small",
            "linux-3.14",
            "crash",
            f"{SHM} </torch_14450_2230201389_0>: No space",
            emulated,
        ),
        run("08_module_side_effects", "linux-3.14", "wrong", f"{DIRS} ['20261202-041117-554737']", emulated),
    ]
    real = [
        run("16_dev_shm_too_small", "linux-3.14", "crash", f"{SHM} </torch_727_326961040_0>: No space"),
        run("08_module_side_effects", "linux-3.14", "wrong", f"{DIRS} ['20261202-083426-147814']"),
        run(
            "03_lambda_collate",
            "linux-3.14",
            "crash",
            "_pickle.PicklingError: Can't pickle local object <function",
        ),
        run("12_too_many_open_files", "linux-3.14", "crash", "RuntimeError: Too many open files"),
    ]
    results.save(tmp_path / "linux-py3.11.json", ResultsFile({"os": "linux", "python": "3.11.7"}, here))
    results.save(tmp_path / "linux-py3.14.json", ResultsFile({"os": "linux", "python": "3.14.10"}, real))
    recorded = results_data.load_all(tmp_path)
    reference = results_data.reference(recorded)
    assert reference.environment["python"] == "3.11.7", "the file with the most profiles, not the latest"
    compared = differences.pairs(reference, results_data.observed_columns(recorded, reference))
    text = differences.listed(discover(), compared)
    assert (
        "`linux-3.14` observed (Linux · Python 3.14.10 · torch None) against `linux-3.14` emulated here"
        in text
    )
    assert "cells that differ, 1." in text and text.count("| [") == 1, "pids and time stamps aside: " + text
    assert "&#95;pickle.PicklingError" in text and "AttributeError: Can&#x27;t pickle local object" in text


def test_the_merged_search_index_is_split_by_language(tmp_path):
    import json

    from harness.site import search_index

    merged = {"config": {"lang": ["en", "zh"]}, "docs": [
        {"location": "", "title": "Home", "text": ""},
        {"location": "cases/03/#fix", "title": "Fix", "text": ""},
        {"location": "zh/", "title": "首页", "text": ""},
        {"location": "zh/cases/03/#修复", "title": "修复", "text": ""},
    ]}  # fmt: skip
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text(json.dumps(merged))
    assert search_index.split(tmp_path, ("en", "zh"), "en") == {"en": 2, "zh": 2}
    english = json.loads((tmp_path / "search" / "search_index.json").read_text())
    chinese = json.loads((tmp_path / "zh" / "search" / "search_index.json").read_text())
    assert [d["location"] for d in english["docs"]] == ["", "cases/03/#fix"]
    assert [d["location"] for d in chinese["docs"]] == ["", "cases/03/#修复"], "relative to zh/"
    assert chinese["config"] == merged["config"]
    page = '<script id="__config" type="application/json">{"annotate": null, "base": "../../..", "x": 1}'
    assert '"base": "../../../zh/"' in search_index.point_at_own(page, "zh", "en")
    assert search_index.point_at_own(page, "en", "en") == page


@pytest.mark.parametrize("url", [None, "https://example.org/team/dataloader-pitfalls"])
def test_the_code_is_cloned_from_the_one_address_the_publisher_sets(tmp_path, url):
    """`repo_url` in mkdocs.yml: the home page and every exercise clone it, the package's
    [project.urls] reads it; unset, a placeholder says so and no address is invented."""
    import importlib.util
    from pathlib import Path

    from harness.site.wording import language

    spec = importlib.util.spec_from_file_location("setup_urls", Path(__file__).parents[2] / "setup.py")
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\n" + (f"repo_url: {url}\n" if url else "# repo_url: https://…\n"))
    assert setup.project_urls(config) == ({"Repository": url} if url else {})
    for lang in ("en", "zh"):
        with language(lang):
            home, drill = pages.get_the_code(url), pages.exercise(discover()[0], url)
        for text in (home, drill):
            assert f"git clone {url or 'REPOSITORY'} dataloader-pitfalls" in text
            assert ("mkdocs.yml" in text) is (url is None), "the placeholder is explained where it is used"
        assert "pipx run nox -s reproduce -- 03" in home
        assert drill.index("git clone") < drill.index("pipx run nox -s reproduce -- 01") < drill.index("cp ")


def test_a_case_that_needs_a_gpu_says_so_in_its_exercise():
    """The exercise names the GPU where case.toml's `needs` has "cuda" (case 05), and nowhere else."""
    from harness.site.wording import language

    for case in discover():
        with language("en"):
            text = pages.exercise(case, None)
        assert ("needs a CUDA GPU" in text) is ("cuda" in case.needs), case.name
    assert any("cuda" in case.needs for case in discover()), "some case needs a GPU"
