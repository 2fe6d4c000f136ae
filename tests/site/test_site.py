"""The documentation site: a strict build from the recorded results, its failure modes, and a real
browser loading the pages (Debian's chromium and chromedriver)."""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.site_results import UNDER_WINE, results_fixture

pytest.importorskip("mkdocs", reason="the docs extra is not installed")


from harness.cases import discover
from harness.site import pages


def _columns_shown() -> int:
    """How many columns the site shows: every profile of the reference results file, and each that
    another file (a real interpreter's) observed."""
    from harness.results import RESULTS_DIR
    from harness.site import columns, results_data

    recorded = results_data.load_all(RESULTS_DIR)
    return len(columns.columns(results_data.reference(recorded), recorded))


ROOT = Path(__file__).resolve().parents[2]


ARTIFACTS = Path(os.environ.get("DLP_ARTIFACTS", ROOT / "build" / "test-artifacts"))


CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def build(site_dir: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("site")
    completed = build(site_dir)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "WARNING" not in completed.stderr, completed.stderr[-3000:]
    return site_dir


# Where each language's pages are, and a word of the page chrome that only that language has.
LANGUAGES = {"en": ("", "The code"), "zh": ("zh/", "代码")}


def case_pages(site: Path, lang: str):
    """Each case with the HTML of its page in `lang`."""
    for case in discover():
        yield case, (site / LANGUAGES[lang][0] / "cases" / case.name / "index.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_case_has_a_page_with_its_code_and_observations(site, lang):
    heading = LANGUAGES[lang][1]
    for case, page in case_pages(site, lang):
        title = pages.readme(case, lang).read_text().splitlines()[0].lstrip("# ").split("`")[0]
        assert html.escape(title, quote=False) in page, f"{case.name}: not its {lang} README"
        assert f">{heading}<" in page
        for variant in ("broken", "fixed"):
            first_line = case.script(variant).read_text().splitlines()[0].strip('"')
            assert first_line[:40] in page, f"{case.name}: {variant}.py is not included"
        assert "--- broken.py" in page and "+++ fixed.py" in page, f"{case.name}: no diff"
        assert "dlp-outcome" in page, f"{case.name}: no observed outcomes"
        assert "<!-- dlp:" not in page and "--8&lt;--" not in page


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_case_page_has_its_predict_block_and_exercise(site, lang):
    for case, page in case_pages(site, lang):
        predict, _, rest = page.partition('<details class="question">')
        assert rest, f"{case.name}: no collapsed answer"
        answer = rest.partition("</details>")[0]
        assert answer.count("dlp-outcome") == 2 * _columns_shown(), f"{case.name}: the answer lacks outcomes"
        assert "broken.py" in predict.rsplit("<h2", 1)[-1] and "<ol>" in predict, f"{case.name}: no question"
        text = re.sub(r"<[^>]+>", "", rest)
        assert "nox -s check -- " in text and f"my_{case.number}.py" in text, f"{case.name}: no exercise"
        assert rest.index("--- broken.py") > rest.index(f"my_{case.number}.py"), (
            "the exercise comes before the fix"
        )


@pytest.mark.slow
def test_a_case_readme_linking_another_case_links_its_page_on_the_site(site):
    readme = (ROOT / "cases" / "15_persistent_workers_stale_dataset" / "README.md").read_text()
    assert "(../13_spawn_startup_cost/README.md)" in readme, "the link as GitHub shows it"
    page = (site / "cases" / "15_persistent_workers_stale_dataset" / "index.html").read_text()
    assert 'href="../13_spawn_startup_cost/"' in page


@pytest.mark.slow
def test_hang_page_shows_the_stacks(site):
    page = (site / "cases" / "04_opencv_thread_deadlock" / "index.html").read_text()
    assert "Stacks at the timeout" in page and "limit_opencv_threads" in page
    page = (site / "zh" / "cases" / "04_opencv_thread_deadlock" / "index.html").read_text()
    assert "超时时的调用栈" in page and "limit_opencv_threads" in page


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_plots_are_drawn_on_the_pages_they_explain_in_their_language(site, lang):
    """The run-time chart on the comparison page, case 06's memory and case 13's waits on their own
    pages, each drawn in the page's language (its alt text says so)."""
    folder, _ = LANGUAGES[lang]
    alts = {
        "en": ("Bar chart of the time", "Worker memory over time", "Case 13 in every column"),
        "zh": ("每个 fixed 脚本从启动到退出", "案例 06 中 worker 内存", "案例 13 在每一列下"),
    }
    shown = [("comparison", "run-time"), ("cases/06_memory_growth", "memory"),
             ("cases/13_spawn_startup_cost", "startup-wait")]  # fmt: skip
    for (path, name), alt in zip(shown, alts[lang], strict=True):
        page = (site / folder / path / "index.html").read_text()
        up = "../" * (path.count("/") + 1 + (lang != "en"))
        assert f'src="{up}assets/plots/{name}-{lang}.png"' in page, (path, name)
        assert f'alt="{alt}' in page, (path, alt)
        assert (site / "assets" / "plots" / f"{name}-{lang}.png").stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("readme", ["README.md", "README.zh.md"])
def test_case_with_a_readme_missing_in_either_language_fails_the_build(tmp_path, readme):
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    (cases / "03_lambda_collate" / readme).unlink()
    completed = build(tmp_path / "site", DLP_CASES_DIR=str(cases))
    assert completed.returncode != 0
    assert "every page must exist in English and in 简体中文" in completed.stderr
    assert f"03_lambda_collate/{readme}" in completed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_home_page_orders_the_cases_as_lessons(site, lang):
    from harness.site.wording import LESSONS, language, t

    with language(lang):
        titles = [html.escape(t(title), quote=False) for title, _, _ in LESSONS]
    page = (site / LANGUAGES[lang][0] / "index.html").read_text()
    path = page[page.index(titles[0]) :]
    order = [path.index(f'href="cases/{name}/"') for _, _, names in LESSONS for name in names]
    assert order == sorted(order) and len(order) == len(discover())
    headings = [path.index(title) for title in titles]
    assert headings == sorted(headings)


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_manual_is_a_section_of_the_navigation_and_in_the_search_index(site, lang):
    """The README's reference moved to the site: each manual page is in the navigation, under the
    section "Manual" in its language, in its order, and in that language's search index."""
    from harness.site.navigation import MANUAL_PAGES
    from harness.site.wording import language, t

    prefix = LANGUAGES[lang][0]
    with language(lang):
        section = html.escape(t("Manual"), quote=False)
    page = (site / prefix / "index.html").read_text()
    nav = page[page.index(f"{section}\n") :]
    paths = [name.removesuffix(".md") + "/" for name in MANUAL_PAGES]
    order = [nav.index(f'href="{path}"') for path in paths]
    assert order == sorted(order), "the manual's pages in their order, under its heading"
    index = json.loads((site / prefix / "search" / "search_index.json").read_text())
    located = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert set(paths) <= located, set(paths) - located
    setup = (site / prefix / "setup" / "index.html").read_text()
    assert "<code>pip index versions</code>" in setup and "<!-- dlp:" not in setup  # the mirror hint


@pytest.mark.slow
def test_results_file_failing_its_schema_fails_the_build(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "linux-py3.11-torch9.json").write_text(
        json.dumps({"schema": 999, "environment": {}, "results": []})
    )
    completed = build(tmp_path / "site", DLP_RESULTS_DIR=str(results))
    assert completed.returncode != 0
    assert "linux-py3.11-torch9.json: schema version 999" in completed.stderr


@pytest.mark.slow
def test_bench_page_shows_the_recorded_figures(site):
    page = (site / "bench" / "index.html").read_text()
    for name in ("bench-throughput", "bench-first-batch"):
        assert (site / "assets" / "plots" / f"{name}-en.png").stat().st_size > 10_000
        assert f'src="../assets/plots/{name}-en.png"' in page
    assert 'alt="Throughput against num_workers per start method; cpu under fork: best' in page
    chinese = (site / "zh" / "bench" / "index.html").read_text()
    assert (
        'src="../../assets/plots/bench-throughput-zh.png"' in chinese and 'alt="各启动方法下吞吐量' in chinese
    )
    assert "No bench figures recorded yet" not in page
    assert "recommend_num_workers" in page and "--8&lt;--" not in page  # the usage, included
    assert "the harness added" in page and "| " not in page  # the tables rendered as tables


@pytest.mark.slow
def test_without_a_bench_file_the_bench_page_says_how_to_make_one(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results, ignore=shutil.ignore_patterns("bench"))
    completed = build(tmp_path / "site", DLP_RESULTS_DIR=str(results))
    assert completed.returncode == 0, completed.stderr[-3000:]
    page = (tmp_path / "site" / "bench" / "index.html").read_text()
    assert "No bench figures recorded yet" in page and "nox -s bench" in page


@pytest.mark.slow
def test_a_damaged_bench_file_fails_the_build_naming_it(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "linux-py3.11-torch9.json").write_text('{"schema": 1, "sweeps": ')
    completed = build(tmp_path / "site", DLP_RESULTS_DIR=str(tmp_path))
    assert completed.returncode != 0
    assert "linux-py3.11-torch9.json: damaged bench file" in completed.stderr


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("CI"):
            pytest.fail("CI must have chromium and chromedriver (.ci/run installs them)")
        pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,2400",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


PAGES = ["", "comparison/", "cases/04_opencv_thread_deadlock/", "bench/", "start-method/", "cheatsheet/"]
PAGES += ["setup/", "profiles/", "reading-results/", "check/", "lint/", "development/"]  # the manual


PAGES += [f"zh/{path}" for path in PAGES] + ["glossary/", "zh/glossary/"]


SITE_NAMES = {"en": "DataLoader pitfalls", "zh": "DataLoader 多进程陷阱"}


@pytest.mark.browser
@pytest.mark.parametrize("path", PAGES)
def test_page_loads_without_console_errors_and_its_links_resolve(browser, served, path):
    browser.get(served + path)
    assert SITE_NAMES["zh" if path.startswith("zh/") else "en"] in browser.title
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors
    links = {a.get_attribute("href") for a in browser.find_elements("css selector", "a[href]")}
    internal = {urllib.parse.urldefrag(link)[0] for link in links if link.startswith(served)}
    assert internal, "the page has no internal links"
    for link in sorted(internal):
        with urllib.request.urlopen(link) as response:  # raises on 404
            assert response.status == 200, link


@pytest.mark.browser
def test_comparison_table_has_a_row_per_case(browser, served):
    browser.get(served + "comparison/")
    table = browser.find_element("css selector", "article table.dlp-compat")
    rows = table.find_elements("css selector", "tbody tr")
    cases = discover()
    assert len(rows) == len(cases)
    names = [row.find_element("css selector", "th a").get_attribute("href") for row in rows]
    assert names == [f"{served}cases/{case.name}/" for case in cases]
    assert len(rows[0].find_elements("css selector", "td")) == _columns_shown()


def _switch_language(browser, lang: str) -> None:
    """Choose `lang` in the header's language menu, as a reader does (the menu opens on hover)."""
    link = browser.find_element("css selector", f"a.md-select__link[hreflang={lang}]")
    browser.execute_script("arguments[0].click()", link)


@pytest.mark.browser
def test_the_language_switch_goes_to_the_same_page_in_the_other_language(browser, served):
    from selenium.webdriver.support.ui import WebDriverWait

    case = "03_lambda_collate"
    browser.get(served + f"cases/{case}/")
    assert browser.find_element("css selector", "html").get_attribute("lang") == "en"
    _switch_language(browser, "zh")
    WebDriverWait(browser, 10).until(lambda b: b.current_url == served + f"zh/cases/{case}/")
    assert browser.find_element("css selector", "html").get_attribute("lang") == "zh"
    article = browser.find_element("css selector", "article")
    assert "用 lambda 作为" in article.find_element("css selector", "h1").text
    # the code, its diff and the observed outcomes, shared with the English page
    tabs = article.find_elements("css selector", ".tabbed-set")[-1]
    assert "collate_fn=lambda batch" in tabs.get_attribute("textContent")
    assert "--- broken.py" in article.get_attribute("textContent")
    # a table of observed outcomes per results file: the reference's has every profile it ran
    counts = [
        len(table.find_elements("css selector", ".dlp-outcome"))
        for table in article.find_elements("css selector", "table")
    ]
    assert max(counts) == 2 * _columns_shown(), counts
    # the predict block opens on a click and shows what was observed
    answer = article.find_element("css selector", "details.question")
    assert answer.get_attribute("open") is None
    answer.find_element("css selector", "summary").click()
    WebDriverWait(browser, 5).until(lambda b: answer.get_attribute("open") is not None)
    badges = answer.find_elements("css selector", ".dlp-outcome")
    assert [badge.text for badge in badges if badge.is_displayed()][:2] == ["✓ok", "✓ok"]
    assert "Can't pickle local object" in answer.text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "case-zh.png"))
    _switch_language(browser, "en")
    WebDriverWait(browser, 10).until(lambda b: b.current_url == served + f"cases/{case}/")
    assert "A lambda as" in browser.find_element("css selector", "article h1").text


def _search(browser, served, path: str, query: str) -> list[str]:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(served + path)
    browser.execute_script("document.querySelector('input[data-md-toggle=search]').checked = true")
    browser.find_element("css selector", "input.md-search__input").send_keys(query)
    results = "li.md-search-result__item > a"
    WebDriverWait(browser, 20).until(lambda b: b.find_elements("css selector", results))
    return [
        a.get_attribute("href").removeprefix(served) for a in browser.find_elements("css selector", results)
    ]


@pytest.mark.browser
@pytest.mark.parametrize(
    ("query", "page", "among"),
    [
        ("写时复制", "zh/glossary/", 10),
        ("死锁", "zh/glossary/", 10),
        ("镜像", "zh/setup/", 5),  # a page of the manual, moved there from the README
        # a glossary term is one word to the search (jieba alone cuts it in two, and 进程 matches
        # every page): the pages about daemonic processes come first
        ("守护进程", "zh/glossary/", 4),
        ("守护进程", "zh/cases/17_pool_inside_worker/", 4),
    ],
)
def test_chinese_search_finds_chinese_words(browser, served, query, page, among):
    found = [urllib.parse.urldefrag(href)[0].split("?")[0] for href in _search(browser, served, "zh/", query)]
    assert page in found[:among], found


@pytest.mark.browser
@pytest.mark.parametrize(
    ("start", "query"),
    [("zh/", "DataLoader"), ("zh/cases/13_spawn_startup_cost/", "fork"), ("", "DataLoader"),
     ("cases/13_spawn_startup_cost/", "fork")],
)  # fmt: skip
def test_a_search_finds_pages_in_the_language_it_starts_from(browser, served, start, query):
    found = _search(browser, served, start, query)
    assert found, "the search found nothing"
    in_chinese = {href.startswith("zh/") for href in found}
    assert in_chinese == {start.startswith("zh/")}, found
    assert len(set(found)) == len(found), "no hit twice"


@pytest.mark.slow
def test_the_site_shows_an_observed_windows_column(tmp_path):
    # the committed files (the course's figures read them), the fixture's Windows file beside them
    shutil.copytree(ROOT / "results", tmp_path / "results")
    results_fixture(tmp_path)
    shutil.copy(tmp_path / "windows-py3.12-torch2.13.0.json", tmp_path / "results")
    completed = build(tmp_path / "site", DLP_RESULTS_DIR=str(tmp_path / "results"))
    assert completed.returncode == 0, completed.stderr[-3000:]
    page = (tmp_path / "site" / "comparison" / "index.html").read_text()
    assert "observed: Windows 11 · Python 3.12.7 · torch 2.13.0" in page
    assert "emulated on Linux, Python 3.11.7" in page
    assert f"{UNDER_WINE}, on Linux" in page


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_real_python_columns_stand_beside_their_emulations(site, lang):
    """The committed chroot results (issue 29): under Linux, Debian's 3.13.5 after this machine's
    3.11.7, its 3.14.10 right before the emulated 3.14, and the corrected cells listed."""
    page = (site / LANGUAGES[lang][0] / "comparison" / "index.html").read_text()
    table = page[page.index('<table class="dlp-compat">') : page.index("</table>")]
    heads = re.findall(r'<th scope="col" class="dlp-col[^>]*>(.*?)<br>', table, re.S)
    assert heads[:4] == [
        "Python 3.11.7 · fork",
        "Python 3.13.5 · fork",
        "Python 3.14.10 · forkserver",
        "Python 3.14 · forkserver",
    ], heads
    assert re.search(r'colspan="4" class="dlp-system">Linux<', table)
    assert "module &#x27;&#95;&#95;main&#95;&#95;&#x27; has no attribute" in page, "3.14's wording of 07"


@pytest.mark.slow
def test_signatures_keep_their_underscores(site):
    page = (site / "comparison" / "index.html").read_text()
    assert "on &lt;module &#39;__main__&#39; (built-in)&gt;" in page or "&#95;&#95;main&#95;&#95;" in page
    assert "<strong>main</strong>" not in page and "<strong>getitem</strong>" not in page


@pytest.mark.slow
def test_a_figure_in_the_prose_follows_its_results_file(tmp_path):
    """Re-recording the results re-writes the prose and the plots: a duration, a memory figure and
    case 13's waits changed in the reference results file change the pages and the plots that show
    them, in both languages."""
    from harness.results import RESULTS_DIR
    from harness.site import results_data

    results = tmp_path / "results"
    shutil.copytree(RESULTS_DIR, results)
    reference = results / results_data.reference(results_data.load_all(RESULTS_DIR)).path.name
    data = json.loads(reference.read_text())
    under_wine = [r for r in data["results"] if r["profile"] == "windows" and r["outcome"] != "skipped"]
    under_wine[0]["duration_s"] = 987.6
    (leak,) = [
        r
        for r in data["results"]
        if r["case"] == "06_memory_growth" and r["variant"] == "broken" and r["profile"] == "linux"
    ]
    for worker in leak["memory"]["workers"].values():
        worker["growth_mb"] = 432.1
    (startup,) = [
        r
        for r in data["results"]
        if r["case"] == "13_spawn_startup_cost" and r["variant"] == "broken" and r["profile"] == "linux"
    ]
    for epoch in startup["loader_epochs"][1:]:
        epoch["first_batch_s"] = 6.543
    reference.write_text(json.dumps(data))
    completed = build(tmp_path / "site", DLP_RESULTS_DIR=str(results))
    assert completed.returncode == 0, completed.stderr[-3000:]
    for lang in ("", "zh/"):
        comparison = (tmp_path / "site" / lang / "comparison" / "index.html").read_text()
        assert re.search(r"\d+\.\d–988 s", comparison), "the Wine durations' range, from the changed file"
        memory = (tmp_path / "site" / lang / "cases" / "06_memory_growth" / "index.html").read_text()
        assert "<strong>432 MB</strong>" in memory, "the table's growth under fork"
        plotted = re.search(r'alt="([^"]*(?:case 06|案例 06)[^"]*)"', memory)[1]
        assert "≤ 432 MB" in plotted, "the plot, drawn anew from the changed file"
        waits = (tmp_path / "site" / lang / "cases" / "13_spawn_startup_cost" / "index.html").read_text()
        plotted = re.search(r'alt="([^"]*(?:Case 13|案例 13)[^"]*)"', waits)[1]
        assert "6.54 s" in plotted, "case 13's plot, drawn anew from the changed file"
        assert "dlp:fig" not in memory, "the markers are gone from the page"


# What sticks out of the viewport, sideways: elements of the article whose right edge passes the
# window's, outside the boxes that scroll by design (code blocks, Material's wrapped tables).
OVERFLOWING = """
const width = document.documentElement.clientWidth;
const scrolls = el => el.closest('pre, .md-typeset__scrollwrap, .highlight, .tabbed-labels');
return [...document.querySelectorAll('article *')]
  .filter(el => !scrolls(el) && el.getClientRects().length)
  .filter(el => el.getBoundingClientRect().right > width + 1)
  .slice(0, 5).map(el => el.tagName + '.' + el.className + ': ' + (el.textContent || '').slice(0, 60));
"""


def _at_width(browser, width: int, url: str) -> None:
    browser.set_window_size(width, 1000)
    browser.get(url)


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_comparison_fits_a_laptop_and_its_header_stays_in_view(browser, served, lang):
    """1,400 px: no sideways scrollbar, the table within its column; scrolled half way down the
    table, its header is still at the top of the window, under the site's."""
    try:
        _at_width(browser, 1400, served + LANGUAGES[lang][0] + "comparison/")
        sizes = browser.execute_script(
            "const t = document.querySelector('table.dlp-compat');"
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " t.getBoundingClientRect().right, t.parentElement.getBoundingClientRect().right];"
        )
        page_width, window_width, table_right, column_right = sizes
        assert page_width <= window_width, f"a sideways scrollbar: {page_width} > {window_width} px"
        assert table_right <= column_right + 1, sizes
        assert browser.execute_script(OVERFLOWING) == []
        top = browser.execute_script(
            "const t = document.querySelector('table.dlp-compat'); const r = t.getBoundingClientRect();"
            "window.scrollTo(0, window.scrollY + r.top + r.height / 2);"
            "const head = t.querySelector('thead').getBoundingClientRect();"
            "const site = document.querySelector('.md-header').getBoundingClientRect();"
            "return [head.top, head.bottom, site.bottom];"
        )
        head_top, head_bottom, site_bottom = top
        assert abs(head_top - site_bottom) <= 2 and head_bottom > head_top, f"the header scrolled away: {top}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / f"comparison-scrolled-1400-{lang}.png"))
    finally:
        browser.set_window_size(1400, 2400)


SCREENSHOTS = [
    "comparison/",
    "cases/03_lambda_collate/",
    "cases/06_memory_growth/",
    "cases/13_spawn_startup_cost/",
]


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", SCREENSHOTS)
def test_pages_cut_nothing_on_a_phone_and_are_kept_as_screenshots(browser, served, lang, path):
    """420 px: nothing of the article passes the window's edge (code blocks scroll by themselves,
    but a diff wraps: the change stays in view);
    each page is kept whole at 1,400 and 420 px in build/test-artifacts/ (not in git)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = path.strip("/").replace("/", "_")
    try:
        for width in (420, 1400):
            _at_width(browser, width, served + LANGUAGES[lang][0] + path)
            if width == 420:
                assert browser.execute_script(OVERFLOWING) == [], f"cut at 420 px: {path} ({lang})"
                page_width = browser.execute_script("return document.documentElement.scrollWidth")
                assert page_width <= 420, f"a sideways scrollbar at 420 px: {page_width} px"
                diffs = browser.execute_script(
                    "return [...document.querySelectorAll('.dlp-diff pre > code')]"
                    ".map(code => code.scrollWidth - code.clientWidth);"
                )
                assert all(hidden <= 1 for hidden in diffs), f"a diff scrolls sideways: {diffs} px hidden"
            height = browser.execute_script("return document.documentElement.scrollHeight")
            browser.set_window_size(width, min(height, 16_000))
            assert browser.save_screenshot(str(ARTIFACTS / f"{name}-{width}-{lang}.png"))
    finally:
        browser.set_window_size(1400, 2400)


# Addressed to English readers on purpose: the home page's pointer to the English course.
ENGLISH_ON_PURPOSE = {"This course is also in English"}


@pytest.mark.slow
def test_the_chinese_pages_hold_no_english_sentence(site):
    """Every generated string on a Chinese page comes through the catalog; what stays English is
    code, a command, an error text, a name or a quotation (tests/site/english.py says which)."""
    from tests.site.english import english_sentences

    found = {}
    for page in sorted((site / "zh").rglob("index.html")):
        for sentence in english_sentences(page.read_text(encoding="utf-8")):
            if sentence not in ENGLISH_ON_PURPOSE:
                found.setdefault(sentence, str(page.parent.relative_to(site)))
    assert found == {}, "English on a Chinese page, outside code, names and quotations"


def test_the_english_finder_sees_a_sentence_and_leaves_code_names_and_quotations():
    from tests.site.english import english_sentences

    page = (
        "<p>运行后 <code>it prints an error text here</code>，见 <a href='https://x'>What can be pickled "
        'and unpickled</a>，文档说 "the child process shall be created"。</p>'
        '<p><span lang="en">lock held at fork</span> 的说明</p>'
        "<li>emulated here as: spawn on Linux</li>"
    )
    assert english_sentences(page) == ["emulated here as: spawn on Linux"]
