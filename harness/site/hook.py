"""MkDocs hook: generates a page per case and the plots, and fills the `<!-- dlp:NAME -->` placeholders.

Registered in mkdocs.yml under `hooks:`. A case without README, a results file that fails its schema
check, or an unknown placeholder fails the build with a message that names it. DLP_CASES_DIR and
DLP_RESULTS_DIR point it at other folders (the tests use them); bench figures come from the
`bench/` folder inside the results folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from harness import confirmations
from harness.cases import CASES_DIR, CaseError, discover
from harness.results import RESULTS_DIR, ResultsError
from harness.site import bench_page, pages, plots, results_data

PLACEHOLDER = re.compile(r"<!--\s*dlp:(?P<name>[\w-]+)\s*-->")
PLOTS_DIR = "assets/plots"
_state: dict = {}


def on_config(config):
    cases_dir = Path(os.environ.get("DLP_CASES_DIR", CASES_DIR))
    results_dir = Path(os.environ.get("DLP_RESULTS_DIR", RESULTS_DIR))
    try:
        _state["cases"] = discover(cases_dir)
        _state["recorded"] = results_data.load_all(results_dir)
        _state["bench"] = bench_page.load_latest(results_dir / "bench")
    except (CaseError, ResultsError, bench_page.BenchFileError) as exc:
        raise PluginError(str(exc)) from None
    _state["reference"] = results_data.reference(_state["recorded"])
    _state["results_dir"] = results_dir
    return config


def _confirmed(profile: str, case: str, variant: str) -> bool:
    return confirmations.confirmed(profile, case, variant, _state["results_dir"])


def on_files(files, config):
    for case in _state["cases"]:
        if not (case.path / "README.md").is_file():
            raise PluginError(f"{case.path}: the case has no README.md, so it cannot have a page")
        files.append(File.generated(config, pages.case_page_path(case), content=pages.case_page(case)))
    _state["plots"] = {}
    reference = _state["reference"]
    drawn = {}
    if reference is not None:
        drawn = {
            "memory": plots.memory_plot(reference),
            "startup": plots.startup_plot(reference, [case.name for case in _state["cases"]]),
        }
    bench = _state["bench"]
    if bench is not None and bench.get("sweeps"):
        drawn["bench-throughput"] = bench_page.throughput_plot(bench)
        drawn["bench-first-batch"] = bench_page.first_batch_plot(bench)
    for name, picture in drawn.items():
        if picture is not None:
            png, alt = picture
            files.append(File.generated(config, f"{PLOTS_DIR}/{name}.png", content=png))
            _state["plots"][name] = alt
    return files


def on_page_markdown(markdown, page, config, files):
    def fill(match: re.Match) -> str:
        name = match["name"]
        render = _RENDERERS.get(name)
        if render is None:
            raise PluginError(f"{page.file.src_uri}: unknown placeholder 'dlp:{name}'")
        return render(page)

    return PLACEHOLDER.sub(fill, markdown)


def _case_of(page):
    for case in _state["cases"]:
        if page.file.src_uri == pages.case_page_path(case):
            return case
    raise PluginError(f"{page.file.src_uri}: this placeholder belongs on a case page")


def _plot(name: str, what: str, session: str = "reproduce"):
    def render(page) -> str:
        alt = _state["plots"].get(name)
        if alt is None:
            warning = f'!!! warning "No {what} to draw"\n'
            return warning + f"    No results file records it yet: run `nox -s {session}`.\n"
        up = "../" * page.file.src_uri.count("/")
        return f"![{alt}]({up}{PLOTS_DIR}/{name}.png)\n\n<small>{alt}.</small>\n"

    return render


_RENDERERS = {
    "diff": lambda page: pages.diff(_case_of(page)),
    "observed": lambda page: pages.observed(_case_of(page), _state["recorded"], confirmed=_confirmed),
    "comparison-table": lambda page: pages.comparison_table(
        _state["cases"],
        _state["reference"],
        results_data.observed_columns(_state["recorded"], _state["reference"]),
        confirmed=_confirmed,
    ),
    "profiles": lambda page: pages.profiles_list(_state["reference"]),
    "cause-table": lambda page: pages.cause_table(_state["cases"], _state["reference"]),
    "recorded": lambda page: pages.recorded_list(_state["recorded"]),
    "memory-plot": _plot("memory", "memory series"),
    "startup-plot": _plot("startup", "run times"),
    "bench-throughput-plot": _plot("bench-throughput", "throughput", "bench"),
    "bench-first-batch-plot": _plot("bench-first-batch", "time to the first batch", "bench"),
    "bench-machine": lambda page: _bench(bench_page.machine),
    "bench-startup-table": lambda page: _bench(bench_page.startup_table),
    "bench-autotune-table": lambda page: _bench(bench_page.autotune_table),
    "bench-overhead": lambda page: _bench(bench_page.overhead),
}


def _bench(render) -> str:
    bench = _state["bench"]
    return bench_page.MISSING if bench is None else render(bench)
