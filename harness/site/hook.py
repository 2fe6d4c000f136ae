"""MkDocs hook: generates a page per case and language, the plots and the navigation, and fills the
`<!-- dlp:NAME -->` placeholders.

Registered in mkdocs.yml under `hooks:`. The site is built from a staging copy of docs/ that also
holds the generated pages as real files, so that the i18n plugin (mkdocs-static-i18n) sees them
as it sees any page: `cases/NN_slug.md` from the case's README.md, `cases/NN_slug.zh.md` from its
README.zh.md. A page or case README in one language only, a case without README, a case in no
lesson, a results file that fails its schema check, an unknown placeholder or a figure that the results
do not give (harness/site/figures.py) fails the build with
a message that names it. DLP_CASES_DIR and DLP_RESULTS_DIR point it at other folders (the tests
use them); bench figures come from the `bench/` folder inside the results folder.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from .. import confirmations, experiments
from ..cases import CASES_DIR, CaseError, discover
from ..outcomes import Outcome
from ..results import RESULTS_DIR, ResultsError
from . import (
    badges,
    bench_page,
    columns,
    comparison,
    differences,
    figures,
    navigation,
    pages,
    plots,
    results_data,
    search_index,
    windows_seen,
    wording,
)
from .wording import N_, t

PLACEHOLDER = re.compile(r"<!--\s*dlp:(?P<name>[\w-]+)\s*-->")
PLOTS_DIR = "assets/plots"
_state: dict = {}


def on_config(config):
    if config.docs_dir == _state.get("staging"):
        return config  # the i18n plugin building the next language with the same configuration
    cases_dir = Path(os.environ.get("DLP_CASES_DIR", CASES_DIR))
    results_dir = Path(os.environ.get("DLP_RESULTS_DIR", RESULTS_DIR))
    try:
        _state["cases"] = discover(cases_dir)
        _state["recorded"] = results_data.load_all(results_dir)
        _state["bench"] = bench_page.load_latest(results_dir / "bench")
        _state["experiments"] = experiments.load_recorded(results_dir / "experiments")
        navigation.check_pairs(Path(config.docs_dir), _state["cases"])
        navigation.check_lessons(_state["cases"])
    except (
        CaseError,
        ResultsError,
        bench_page.BenchFileError,
        navigation.LanguageError,
        experiments.ExperimentError,
    ) as exc:
        raise PluginError(str(exc)) from None
    _state["reference"] = results_data.reference(_state["recorded"])
    _state["columns"] = columns.columns(_state["reference"], _state["recorded"])
    _state["results_dir"] = results_dir
    _state["site_dir"] = Path(config.site_dir)  # the root's: each language's build goes under it
    _state["repo_url"] = config.repo_url  # set by the publisher in mkdocs.yml; None where unset
    _state["source_docs"] = config.docs_dir
    _stage(config)
    navigation.add_search_terms(Path(config.docs_dir))
    if config.nav is None:
        config.nav = navigation.nav(_state["cases"], Path(config.docs_dir))
    return config


def _stage(config) -> None:
    """Copy docs/ to a staging folder, add the generated pages and plots to it, and build from it."""
    _remove_staging()
    staging = Path(tempfile.mkdtemp(prefix="dlp-docs-"))
    shutil.copytree(config.docs_dir, staging, dirs_exist_ok=True)
    for case in _state["cases"]:
        for lang in wording.LANGUAGES:
            with wording.language(lang):
                page = staging / pages.case_page_path(case, lang)
                page.parent.mkdir(parents=True, exist_ok=True)
                page.write_text(pages.case_page(case, config.repo_url), encoding="utf-8")
    _draw_plots(staging)
    _state["staging"] = config.docs_dir = str(staging)


def _remove_staging() -> None:
    staging = _state.pop("staging", None)
    if staging:
        shutil.rmtree(staging, ignore_errors=True)


atexit.register(_remove_staging)  # when the build ends, and when `mkdocs serve` is stopped (Ctrl-C)


def on_serve(server, config, builder):
    """`mkdocs serve` rebuilds when the real pages, cases or results change, not the staging copy."""
    for folder in (_state["source_docs"], CASES_DIR, RESULTS_DIR):
        server.watch(str(folder))
    return server


def _confirmed(profile: str, case: str, variant: str) -> bool:
    return confirmations.confirmed(profile, case, variant, _state["results_dir"])


def _draw_plots(staging: Path) -> None:
    """Every plot in every language, as `assets/plots/NAME-LANG.png` (NAME.LANG.png would be taken
    for a translation by the i18n plugin); its alt text kept by (name, lang)."""
    _state["plots"] = {}
    try:
        plots.use_fonts()
        drawn = {}
        for lang in wording.LANGUAGES:
            with wording.language(lang):
                drawn |= {(name, lang): picture for name, picture in _drawings().items() if picture}
    except plots.FontMissing as exc:
        raise PluginError(str(exc)) from None
    for (name, lang), (png, alt) in drawn.items():
        target = staging / PLOTS_DIR / f"{name}-{lang}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
        _state["plots"][name, lang] = alt


def _drawings() -> dict:
    """The plots the results and the bench file give, drawn in the current language."""
    reference, found = _state["reference"], _state["columns"]
    drawn = {
        "run-time": plots.run_time_plot([case.name for case in _state["cases"]], found),
        "startup-wait": plots.startup_wait_plot(found),
    }
    if reference is not None:
        drawn["memory"] = plots.memory_plot(reference)
    bench = _state["bench"]
    if bench is not None and bench.get("sweeps"):
        drawn["bench-throughput"] = bench_page.throughput_plot(bench)
        drawn["bench-first-batch"] = bench_page.first_batch_plot(bench)
    return drawn


@event_priority(-110)  # after the i18n plugin has put this language's pages in the navigation
def on_nav(nav, config, files):
    navigation.rename_sections(nav.items, _language(config))
    return nav


def _language(config) -> str:
    plugin = getattr(config, "plugins", {}).get("i18n")
    return getattr(plugin, "current_language", None) or wording.DEFAULT


def on_page_markdown(markdown, page, config, files):
    def fill(match: re.Match) -> str:
        name = match["name"]
        render = _RENDERERS.get(name)
        if render is None:
            raise PluginError(f"{page.file.src_uri}: unknown placeholder 'dlp:{name}'")
        return render(page)

    with wording.language(_language(config)):
        return PLACEHOLDER.sub(fill, _figures(markdown, page))


def _figures(markdown: str, page) -> str:
    """The page's measured figures as the results files and case settings give them now."""
    if not figures.SPAN.search(markdown):
        return markdown
    sources = figures.Sources(_state["cases"], _state["recorded"], _state["reference"], _state["experiments"])
    try:
        return figures.figures_only(markdown, sources, page.file.src_uri, {"outcome": _badge})
    except figures.FigureError as exc:
        raise PluginError(str(exc)) from None


def _badge(text: str) -> str:
    """An outcome figure (`leak`) as the badge that every table shows."""
    return badges.badge_for(Outcome(text.strip("`")))


def _case_of(page):
    for case in _state["cases"]:
        if page.file.src_uri in {pages.case_page_path(case, lang) for lang in wording.LANGUAGES}:
            return case
    raise PluginError(f"{page.file.src_uri}: this placeholder belongs on a case page")


def _plot(name: str, what: str, session: str = "reproduce"):
    def render(page) -> str:
        lang = wording.current()
        alt = _state["plots"].get((name, lang))
        if alt is None:
            return t(
                (
                    '!!! warning "No {what} to draw"\n    No results file records it yet: run `nox '
                    "-s {session}`.\n"
                ),
                what=t(what),
                session=session,
            )
        up = "../" * page.file.src_uri.count("/")
        return f"![{alt}]({up}{PLOTS_DIR}/{name}-{lang}.png)\n\n<small>{alt}.</small>\n"

    return render


_RENDERERS = {
    "diff": lambda page: pages.diff(_case_of(page)),
    "observed": lambda page: pages.observed(_case_of(page), _state["columns"], confirmed=_confirmed),
    "predict-answer": lambda page: pages.predict_answer(
        _case_of(page), _state["columns"], confirmed=_confirmed
    ),
    "on-windows": lambda page: windows_seen.block(_case_of(page), _state["reference"]),
    "emulation-differences": lambda page: differences.listed(
        _state["cases"],
        differences.pairs(
            _state["reference"], results_data.observed_columns(_state["recorded"], _state["reference"])
        ),
    ),
    "learning-path": lambda page: navigation.learning_path(_state["cases"]),
    "get-the-code": lambda page: pages.get_the_code(_state["repo_url"]),
    "comparison-table": lambda page: comparison.table(
        _state["cases"], _state["columns"], "../" * (page.file.src_uri.count("/") + 1), confirmed=_confirmed
    ),
    "profiles": lambda page: pages.profiles_list(_state["reference"]),
    "cause-table": lambda page: pages.cause_table(_state["cases"], _state["reference"]),
    "recorded": lambda page: pages.recorded_list(_state["recorded"]),
    "memory-plot": _plot("memory", N_("memory series")),
    "run-time-plot": _plot("run-time", N_("run times")),
    "startup-wait-plot": _plot("startup-wait", N_("first-batch waits")),
    "bench-throughput-plot": _plot("bench-throughput", N_("throughput"), "bench"),
    "bench-first-batch-plot": _plot("bench-first-batch", N_("time to the first batch"), "bench"),
    "bench-machine": lambda page: _bench(bench_page.machine),
    "bench-startup-table": lambda page: _bench(bench_page.startup_table),
    "bench-autotune-table": lambda page: _bench(bench_page.autotune_table),
    "bench-overhead": lambda page: _bench(bench_page.overhead),
}


def _bench(render) -> str:
    bench = _state["bench"]
    return (
        t('!!! warning "No bench figures recorded yet"\n    Run `nox -s bench` to measure this machine.\n')
        if bench is None
        else render(bench)
    )


# The i18n plugin points the theme's alternate links at this page in each language. Material's
# script fetches a sitemap.xml beside each such link, which exists only at the site's root, and
# logs a 404 for every page; the language menu in the header links the same pages by itself.
ALTERNATE_LINK = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def on_post_page(output, page, config):
    return search_index.point_at_own(ALTERNATE_LINK.sub("", output), _language(config), wording.DEFAULT)


@event_priority(-200)  # after the i18n plugin has merged every language's entries into one index
def on_post_build(config):
    search_index.split(_state["site_dir"], wording.LANGUAGES, wording.DEFAULT)
