"""Markdown for the generated parts of the site: case pages, the comparison and cause tables."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from .. import profiles
from ..cases import VARIANTS, Case
from ..outcome_table import SIGNATURE_WIDTH
from ..outcomes import Outcome
from ..profiles import PROFILES
from ..results import RunResult
from ..run import confine, needs
from . import badges, how_words, windows_seen, wording
from .columns import Column
from .results_data import Recorded
from .wording import N_, t

# A case page shows its own runs whole enough to read their figures (case 13: the wait, its share,
# the threshold, the workers' shutdown); the comparison table keeps the short form.
OBSERVED_WIDTH = 300

STACK_LINES = 14


# A link from one case's README to another's, `(../NN_slug/README.md#part)`: on the site, its page.
CASE_LINK = re.compile(r"\(\.\./(\d{2}_[a-z0-9_]+)/README(?:\.zh)?\.md(#[^)]*)?\)")


# A case's README in each language: README.md (English) and README.zh.md.
README_NAMES = {"en": "README.md", "zh": "README.zh.md"}


def case_page_path(case: Case, lang: str = "en") -> str:
    return f"cases/{case.name}.md" if lang == "en" else f"cases/{case.name}.{lang}.md"


def readme(case: Case, lang: str) -> Path:
    return case.path / README_NAMES[lang]


def case_page(case: Case, repo_url: str | None = None) -> str:
    """The page of one case, in the current language: its title, the predict block, the README, the
    exercise, then the real scripts, their diff, and what was observed."""
    text = readme(case, wording.current()).read_text(encoding="utf-8")
    # Links to another case's README (in either language) go to its page, in the page's language.
    text = CASE_LINK.sub(r"(\1.md\2)", text)
    title, _, body = text.partition("\n")
    folder = _folder(case)
    code_heading, code_from = (
        t("The code"),
        t("From `{folder}/`, included from the files themselves:", folder=folder),
    )
    observed_heading = t("Observed")
    code = "\n".join(
        f'=== "{variant}.py"\n\n    ```python\n    --8<-- "{folder}/{variant}.py"\n    ```\n'
        for variant in VARIANTS
    )
    return (
        f"{title}\n\n{predict_block(case)}\n"
        f"{_with_exercise(windows_seen.placed(body.strip()), case, repo_url)}\n\n"
        f"## {code_heading}\n\n{code_from}\n\n{code}\n"
        f"## {observed_heading}\n\n<!-- dlp:observed -->\n"
    )


def _with_exercise(body: str, case: Case, repo_url: str | None) -> str:
    """The README with the exercise before its Fix: the section that shows the diff (or, without
    one, before its last section, the references)."""
    diff_at = body.find("<!-- dlp:diff -->")
    fix_at = body.rfind("\n## ", 0, diff_at) if diff_at >= 0 else body.rfind("\n## ")
    if fix_at < 0:
        return f"{body}\n\n{exercise(case, repo_url)}"
    return f"{body[:fix_at]}\n\n{exercise(case, repo_url)}{body[fix_at:]}"


def _folder(case: Case) -> str:
    return case.path.relative_to(case.path.parent.parent).as_posix()


def predict_block(case: Case) -> str:
    """The question before the answer: broken.py, what it does under each start method, and the
    observed outcomes collapsed below (filled from the results by the `predict-answer` placeholder)."""
    questions = "\n".join(f"{n}. {t(QUESTIONS[m])}" for n, m in enumerate(START_METHODS_SHOWN, 1))
    heading, intro, answer = (
        t("Predict first"),
        t("Before you read on: look at `broken.py`, then decide what it does"),
        t("What the harness observed (open it once you have chosen)"),
    )
    choices = t("Choose one for each: ") + t(
        "**ok**: it finishes, correct · **crash**: an exception or a killed worker · "
        "**hang**: it stops making progress · **wrong**: it finishes with a wrong result "
        "· **leak**: memory or files keep growing · **slow**: correct, but far slower."
    )
    return (
        f"## {heading}\n\n{intro}\n\n{questions}\n\n{choices}\n\n"
        f'???+ example "broken.py"\n\n    ```python\n    --8<-- "{_folder(case)}/broken.py"\n    ```\n\n'
        f'??? question "{answer}"\n\n    <!-- dlp:predict-answer -->\n'
    )


START_METHODS_SHOWN = ("fork", "forkserver", "spawn")
QUESTIONS = {
    "fork": N_("under **fork** (Linux, Python ≤ 3.13)?"),
    "forkserver": N_("under **forkserver** (Linux, Python ≥ 3.14)?"),
    "spawn": N_("under **spawn** (Windows, macOS)?"),
}


def predict_answer(case: Case, found: list[Column], confirmed=lambda *key: False) -> str:
    """The observed outcomes of both scripts in every column (the real interpreters beside the
    emulations), indented to sit inside the collapsed block."""
    if not found:
        return t("No results file is recorded yet: run `nox -s reproduce` and `nox -s verify`.")
    files = ", ".join(sorted({f"`{c.source.path.name}`" for c in found}))
    text = (
        t(
            ("From the results files ({files}), not typed in: `broken.py` and `fixed.py` in each column."),
            files=files,
        )
        + "\n\n"
        + observed_table(case, found, confirmed, limit=SIGNATURE_WIDTH)
    )
    return text.replace("\n", "\n    ")


CLONE_FOLDER = "dataloader-pitfalls"
FIRST_CASE = "03"  # the one the home page runs: short, and it fails under spawn and forkserver


def _get_the_code(repo_url: str | None) -> list[tuple[str, str]]:
    """Clone the repository (from `repo_url` in mkdocs.yml; a placeholder where none is set)."""
    address = repo_url or "REPOSITORY"
    return [(f"git clone {address} {CLONE_FOLDER}", t("the code")), (f"cd {CLONE_FOLDER}", "")]


def _commands(commands: list[tuple[str, str]]) -> str:
    """A bash block, each command with its comment aligned."""
    width = max(len(command) for command, _ in commands) + 3
    lines = (f"{c:<{width}}# {why}" if why else c for c, why in commands)
    return "```bash\n" + "\n".join(lines) + "\n```"


def _unset(repo_url: str | None) -> str:
    return (
        ""
        if repo_url
        else t(
            "`REPOSITORY` stands for the repository's address, which this build of the site "
            "does not know: whoever publishes it sets `repo_url` in `mkdocs.yml`."
        )
        + "\n\n"
    )


def get_the_code(repo_url: str | None) -> str:
    """The home page's first commands: get the code, run one case."""
    commands = [
        *_get_the_code(repo_url),
        (
            f"pipx run nox -s reproduce -- {FIRST_CASE}",
            t("case {case} under every profile", case=FIRST_CASE),
        ),
    ]
    intro, after = (
        t(
            "**Run a case yourself** (Python 3.10+, git and pipx: `sudo apt install "
            "python3-venv pipx git` on Debian and Ubuntu, `brew install pipx` on macOS; the "
            "README has Windows):"
        ),
        t(
            "Without `-- {case}` it runs every case. On Linux the first run downloads torch's "
            "CPU-only build, about 200 MB.",
            case=FIRST_CASE,
        ),
    )
    return f"{intro}\n\n{_commands(commands)}\n\n{_unset(repo_url)}{after}\n"


def exercise(case: Case, repo_url: str | None = None) -> str:
    """Get the code, fix your own copy of broken.py, and let `check` judge it under every profile."""
    number = case.number
    copy = f"my_{number}.py"
    stdin = "--stdin " if case.via_stdin else ""
    sizes = case.confined
    confined = [(way, f"{sizes[way.setting]:g}") for way in confine.ORDER if way.setting in sizes]
    options = "".join(f"{way.option} {size} " for way, size in confined)
    commands = [
        *_get_the_code(repo_url),
        (f"pipx run nox -s reproduce -- {number}", t("watch broken.py fail, as above")),
        (f"cp {_folder(case)}/broken.py {copy}", t("your copy: edit it")),
        (
            f"pipx run nox -s check -- {stdin}{options}--full {copy}",
            t("runs it under every profile, to its end, and lints it"),
        ),
    ]
    notes = [_unset(repo_url).strip()] if not repo_url else []
    if case.via_stdin:
        notes.append(t("The case runs as a notebook does, so `check` reads the code on standard input."))
    notes += [t(way.exercise, size=size) for way, size in confined]
    if needs.CUDA in case.needs:
        notes.append(t("This case needs a CUDA GPU: without one, its runs are `skipped`, not judged."))
    extra = "".join(f"{note}\n\n" for note in notes)
    block = _commands(commands)
    heading, intro, done = (
        t("Exercise"),
        t(
            "Without reading `fixed.py` yet: change your own copy of `broken.py` so that it "
            "runs under spawn and forkserver as well as under fork, then let the harness "
            "judge it."
        ),
        t(
            "You are done when `check` finds no pitfall: every profile **ok** and no lint "
            "finding. Then compare your change with the diff below. `dataloader-pitfalls "
            "check` (or `dlp check`) does the same where the package is installed."
        ),
    )
    return f"## {heading}\n\n{intro}\n\n{block}\n\n{extra}{done}\n"


def diff(case: Case) -> str:
    """`diff -u broken.py fixed.py`, computed from the files, as a fenced block."""
    broken, fixed = (case.script(v).read_text(encoding="utf-8").splitlines() for v in VARIANTS)
    lines = difflib.unified_diff(broken, fixed, "broken.py", "fixed.py", lineterm="")
    # its long lines wrap (docs/stylesheets/outcomes.css), so that the change is in view
    return "\n".join(['<div class="dlp-diff" markdown>', "", "```diff", *lines, "```", "", "</div>"])


def observed_table(case: Case, found: list[Column], confirmed, limit: int = OBSERVED_WIDTH) -> str:
    """One row per column (grouped by system, as on the comparison page), broken and fixed side by
    side, each with its signature in full."""
    rows = [t("| column | broken.py | fixed.py |"), "| --- | --- | --- |"]
    for column in found:
        cells = [
            badges.full(r, badges.notes(case, v, column, r, confirmed), limit)
            for v, r in ((v, column.get(case.name, v)) for v in VARIANTS)
        ]
        name = f"{column.system_name()} · {column.heading()}<br><small>{column.produced_by()}</small>"
        rows.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(rows) + "\n"


def observed(case: Case, found: list[Column], confirmed=lambda *key: False) -> str:
    """Every column's runs of the case in one table, the stacks of its hangs, and the files they
    come from."""
    if not found:
        return t('!!! warning "No results recorded"\n    Run `nox -s reproduce` and `nox -s verify`.\n')
    stacks = [_stacks(c.get(case.name, v)) for c in found for v in VARIANTS]
    described = dict.fromkeys(c.source.describe() for c in found)  # each file once, in column order
    files = "\n".join(f"- {text}" for text in described)
    return "\n".join(
        [
            observed_table(case, found, confirmed),
            *(s for s in stacks if s),
            t("The results files they come from:"),
            "",
            files,
            "",
        ]
    )


def _stacks(result: RunResult | None) -> str:
    """A collapsed admonition with the stuck processes' stacks, for a hang."""
    if result is None or result.outcome is not Outcome.HANG:
        return ""
    excerpts = []
    for pid, text in result.stacks.items():
        if "_worker_loop" not in text:
            continue
        _, _, rest = text.partition("\n")  # after the "# pid …" header line
        current = rest[rest.find("Current thread") :] if "Current thread" in rest else rest
        excerpts.append(t("Python stack of worker {pid}:", pid=pid) + "\n\n" + _code(current, "text"))
        native = result.native_stacks.get(pid)
        if native:
            excerpts.append(
                t("Native stack of worker {pid} (py-spy):", pid=pid) + "\n\n" + _code(native, "text")
            )
        break  # one worker tells it; the results file has them all
    if not result.native_stacks:
        excerpts.append(result.native_stacks_note or t("No native stacks were recorded."))
    title = t("Stacks at the timeout: {variant}, {profile}", variant=result.variant, profile=result.profile)
    body = "\n\n".join(excerpts)
    return f'??? note "{title}"\n\n' + "\n".join("    " + line for line in body.splitlines()) + "\n"


def _code(text: str, language: str) -> str:
    lines = text.strip().splitlines()[:STACK_LINES]
    return f"```{language}\n" + "\n".join(lines) + "\n```"


SEEN = {
    "native": N_("observed natively."),
    "emulated": N_("emulated here as: {how}."),
    "wine": N_("run here by {how}: Windows' own binaries, on Linux, not Windows."),
}


def profiles_list(reference: Recorded | None) -> str:
    """What each column imposes in every process, how this machine imitated it, what it cannot show."""
    items = []
    for profile in PROFILES.values():
        how = reference.emulation(profile.name) if reference else ""
        kind = reference.how_ran(profile.name) if reference and how else "native"
        seen = t(SEEN[kind], how=how_words.described(how))
        imposes, limits = (t(text) if text else "" for text in (profile.imposes, profile.limits))
        items.append(
            t(
                "- **{title}** (`--profile {name}`): {imposes} In the table: {seen} {limits}",
                title=t(profile.title),
                name=profile.name,
                imposes=imposes,
                seen=seen,
                limits=limits,
            )
        )
    return "\n".join(items) + "\n"


# Each difference between the start methods: what fork, forkserver (CPython 3.14.1+) and spawn do,
# and the case that shows it.
CAUSES = [
    (
        "Process start",
        "copies the running parent",
        "forks a server that imported the main script once",
        "starts a fresh interpreter",
        "01_missing_main_guard",
    ),
    (
        "Main script run again",
        "never",
        "once, in the server, as `__mp_main__`",
        "in every worker, as `__mp_main__`",
        "01_missing_main_guard",
    ),
    (
        "Top-level side effects",
        "happen once",
        "happen twice: the script and the server",
        "happen again in every worker",
        "08_module_side_effects",
    ),
    (
        "Pickling needs",
        "none: objects are copied",
        "Dataset, collate_fn, worker_init_fn",
        "Dataset, collate_fn, worker_init_fn",
        "03_lambda_collate",
    ),
    (
        "Classes defined in a notebook",
        "copied with the process",
        "not importable: not found",
        "not importable: not found",
        "07_interactive_main_class",
    ),
    (
        "Open files and handles",
        "inherited, offset shared",
        "cannot be pickled",
        "cannot be pickled",
        "02_open_file_handle",
    ),
    (
        "Threads and locks",
        "copied without their threads",
        "the server's own: those the script's top level started",
        "start clean",
        "11_lock_held_at_fork",
    ),
    (
        "Library thread pools",
        "copied half-alive (OpenCV, OpenMP)",
        "the server's, if the script's top level used them",
        "each worker builds its own",
        "04_opencv_thread_deadlock",
    ),
    (
        "Memory inheritance",
        "shared copy-on-write, dirtied by reads",
        "what the server imported is shared; the Dataset is a copy per worker",
        "a full copy per worker",
        "06_memory_growth",
    ),
    (
        "Start-up cost per worker",
        "milliseconds",
        "a fork of the server, and the pickled Dataset",
        "an interpreter, torch, the pickled Dataset",
        "13_spawn_startup_cost",
    ),
    (
        "Random generators on the Dataset",
        "copied in the same state",
        "copied in the same state",
        "copied in the same state",
        "09_duplicated_randomness",
    ),
]
CAUSE_PROFILES = profiles.shown_in("causes")


def cause_table(cases: list[Case], reference: Recorded | None) -> str:
    by_name = {case.name: case for case in cases}
    heads = " | ".join(t("broken, {profile}", profile=profile) for profile in CAUSE_PROFILES)
    rows = [
        t("| difference | fork | forkserver (3.14.1+) | spawn | shown by | ") + heads + " |",
        "|---" * (5 + len(CAUSE_PROFILES)) + "|",
    ]
    for *words, name in CAUSES:
        aspect, fork, forkserver, spawn = (t(text) for text in words)
        case = by_name.get(name)
        if case is None:
            raise KeyError(f"the cause table names case {name}, which does not exist")
        link = f"[{case.name}]({case_page_path(case)})"
        seen = [
            badges.full(reference.get(name, "broken", p) if reference else None, [], SIGNATURE_WIDTH)
            for p in CAUSE_PROFILES
        ]
        rows.append(f"| {aspect} | {fork} | {forkserver} | {spawn} | {link} | " + " | ".join(seen) + " |")
    return "\n".join(rows) + "\n"


def recorded_list(recorded: list[Recorded]) -> str:
    if not recorded:
        return t('!!! warning "No results recorded yet"\n    Run `nox -s reproduce` and `nox -s verify`.\n')
    items = "\n".join(f"- {r.describe()}" for r in recorded)
    return (
        t('!!! info "Where these observations come from"')
        + "\n\n"
        + "\n".join("    " + line for line in items.splitlines())
    )
