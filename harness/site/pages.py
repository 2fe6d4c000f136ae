"""Markdown for the generated parts of the site: case pages, the comparison and cause tables."""

from __future__ import annotations

import difflib
import html
import re
from pathlib import Path

from .. import profiles
from ..cases import VARIANTS, Case
from ..outcome_table import SIGNATURE_WIDTH
from ..outcomes import Outcome
from ..profiles import PROFILE_NAMES, PROFILES, SYSTEM_NAMES
from ..results import RunResult
from . import windows_seen, wording
from .results_data import Recorded
from .wording import t

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


def case_page(case: Case) -> str:
    """The page of one case, in the current language: its title, the predict block, the README, the
    exercise, then the real scripts, their diff, and what was observed."""
    text = readme(case, wording.current()).read_text(encoding="utf-8")
    # Links to another case's README (in either language) go to its page, in the page's language.
    text = CASE_LINK.sub(r"(\1.md\2)", text)
    title, _, body = text.partition("\n")
    folder = _folder(case)
    code = "\n".join(
        f'=== "{variant}.py"\n\n    ```python\n    --8<-- "{folder}/{variant}.py"\n    ```\n'
        for variant in VARIANTS
    )
    return (
        f"{title}\n\n{predict_block(case)}\n{_with_exercise(windows_seen.placed(body.strip()), case)}\n\n"
        f"## {t('code.heading')}\n\n{t('code.intro', folder=folder)}\n\n{code}\n"
        f"## {t('observed.heading')}\n\n<!-- dlp:observed -->\n"
    )


def _with_exercise(body: str, case: Case) -> str:
    """The README with the exercise before its Fix: the section that shows the diff (or, without
    one, before its last section, the references)."""
    diff_at = body.find("<!-- dlp:diff -->")
    fix_at = body.rfind("\n## ", 0, diff_at) if diff_at >= 0 else body.rfind("\n## ")
    if fix_at < 0:
        return f"{body}\n\n{exercise(case)}"
    return f"{body[:fix_at]}\n\n{exercise(case)}{body[fix_at:]}"


def _folder(case: Case) -> str:
    return case.path.relative_to(case.path.parent.parent).as_posix()


def predict_block(case: Case) -> str:
    """The question before the answer: broken.py, what it does under each start method, and the
    observed outcomes collapsed below (filled from the results by the `predict-answer` placeholder)."""
    questions = "\n".join(f"{n}. {t('predict.' + m)}" for n, m in enumerate(START_METHODS_SHOWN, 1))
    return (
        f"## {t('predict.heading')}\n\n{t('predict.intro')}\n\n{questions}\n\n"
        f"{t('predict.choices')}{t('predict.choice-list')}\n\n"
        f'???+ example "broken.py"\n\n    ```python\n    --8<-- "{_folder(case)}/broken.py"\n    ```\n\n'
        f'??? question "{t("predict.answer")}"\n\n    <!-- dlp:predict-answer -->\n'
    )


START_METHODS_SHOWN = ("fork", "forkserver", "spawn")


def _how(how_ran: str) -> str:
    """ "(observed)" for a profile that ran on its own system, "(Windows binaries under Wine)" and
    "(emulated)" for one imitated here (Recorded.how_ran)."""
    return t(f"observed.{how_ran}")


def predict_answer(case: Case, reference: Recorded | None) -> str:
    """The observed outcomes of both scripts under each profile of the reference results file,
    indented to sit inside the collapsed block."""
    if reference is None:
        return t("predict.no-results")
    rows = [t("predict.answer-head"), "| --- | --- | --- | --- |"]
    for profile in reference.profiles_run():
        how = _how(reference.how_ran(profile))
        cells = [cell(reference.get(case.name, v, profile)) for v in VARIANTS]
        method = PROFILES[profile].start_method
        rows.append(
            f"| {method} | {PROFILES[profile].title} <small>{how}</small> | {cells[0]} | {cells[1]} |"
        )
    text = t("predict.answer-intro", file=reference.path.name) + "\n\n" + "\n".join(rows)
    return text.replace("\n", "\n    ")


def exercise(case: Case) -> str:
    """Fix your own copy of broken.py, and let `check` judge it under every profile."""
    number = case.number
    copy = f"my_{number}.py"
    stdin = "--stdin " if case.via_stdin else ""
    shm = f"--shm-mb {case.dev_shm_mb:g} " if case.dev_shm_mb else ""
    commands = [
        (f"nox -s reproduce -- {number}", t("exercise.see")),
        (f"cp {_folder(case)}/broken.py {copy}", t("exercise.copy")),
        (f"nox -s check -- {stdin}{shm}--full {copy}", t("exercise.check")),
    ]
    width = max(len(command) for command, _ in commands) + 3
    notes = []
    if case.via_stdin:
        notes.append(t("exercise.stdin"))
    if case.dev_shm_mb:
        notes.append(t("exercise.shm", mb=f"{case.dev_shm_mb:g}"))
    if "gpu" in case.needs:
        notes.append(t("exercise.gpu"))
    block = "```bash\n" + "\n".join(f"{c:<{width}}# {why}" for c, why in commands) + "\n```"
    extra = "".join(f"{note}\n\n" for note in notes)
    return f"## {t('exercise.heading')}\n\n{t('exercise.intro')}\n\n{block}\n\n{extra}{t('exercise.done')}\n"


def diff(case: Case) -> str:
    """`diff -u broken.py fixed.py`, computed from the files, as a fenced block."""
    broken, fixed = (case.script(v).read_text(encoding="utf-8").splitlines() for v in VARIANTS)
    lines = difflib.unified_diff(broken, fixed, "broken.py", "fixed.py", lineterm="")
    return "\n".join(["```diff", *lines, "```"])


def outcome_badge(result: RunResult | None) -> str:
    if result is None:
        return f'<span class="dlp-outcome dlp-none">{t("cell.none")}</span>'
    return f'<span class="dlp-outcome dlp-{result.outcome.value}">{result.outcome.value}</span>'


def literal(text: str) -> str:
    """Text shown as it is inside a Markdown table cell: HTML-escaped, and no `__x__` emphasis."""
    return html.escape(text).replace("_", "&#95;").replace("*", "&#42;")


def short(text: str, limit: int = SIGNATURE_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell(result: RunResult | None, limit: int = SIGNATURE_WIDTH) -> str:
    """An outcome badge with its short signature (or skip reason), and any mismatch, as HTML."""
    parts = [outcome_badge(result)]
    if result is not None:
        detail = result.signature or (result.reason if result.outcome is Outcome.SKIPPED else "")
        if detail:
            parts.append(f"<br><small>{literal(short(detail, limit))}</small>")
        if result.expected_unverified:
            parts.append(f"<br><small><em>{t('cell.unverified', outcome=result.expected)}</em></small>")
        if result.matched is False:
            mismatch = t("cell.mismatch", outcome=result.expected)
            parts.append(f'<br><strong class="dlp-mismatch">{mismatch}</strong>')
    return "".join(parts)


def observed(case: Case, recorded: list[Recorded], confirmed=lambda *key: False) -> str:
    """Per results file: profile × variant, with stacks for hangs."""
    if not recorded:
        return t("observed.none")
    blocks = []
    for source in recorded:
        rows = [t("observed.head"), "| --- | --- | --- |"]
        for profile in source.profiles_run():
            native = source.native(profile)
            cells = [
                cell(source.get(case.name, v, profile), OBSERVED_WIDTH)
                + ("" if native else _unconfirmed(case, v, profile, confirmed))
                for v in VARIANTS
            ]
            rows.append(
                f"| {profile} <small>{_how(source.how_ran(profile))}</small> | {cells[0]} | {cells[1]} |"
            )
        blocks.append(t("observed.from", source=source.describe()) + "\n\n" + "\n".join(rows) + "\n")
        blocks.extend(_stacks(source.get(case.name, v, p)) for v in VARIANTS for p in source.profiles_run())
    return "\n".join(block for block in blocks if block)


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
        excerpts.append(t("stacks.python", pid=pid) + "\n\n" + _code(current, "text"))
        native = result.native_stacks.get(pid)
        if native:
            excerpts.append(t("stacks.native", pid=pid) + "\n\n" + _code(native, "text"))
        break  # one worker tells it; the results file has them all
    if not result.native_stacks:
        excerpts.append(result.native_stacks_note or t("stacks.none"))
    title = t("stacks.title", variant=result.variant, profile=result.profile)
    body = "\n\n".join(excerpts)
    return f'??? note "{title}"\n\n' + "\n".join("    " + line for line in body.splitlines()) + "\n"


def _code(text: str, language: str) -> str:
    lines = text.strip().splitlines()[:STACK_LINES]
    return f"```{language}\n" + "\n".join(lines) + "\n```"


def column_head(source: Recorded, profile: str) -> str:
    """A column's heading: what it stands for, and whether it was observed there or emulated."""
    title = PROFILES[profile].title
    python = source.environment.get("python", "?")
    system = SYSTEM_NAMES.get(source.system, source.system)
    kind = "native" if source.native(profile) else source.how_ran(profile)
    said = t(
        f"column.{kind}", label=source.label(), how=source.emulation(profile), system=system, python=python
    )
    return f"{title}<br><small>{said}</small>"


def _unconfirmed(case: Case, variant: str, profile: str, confirmed) -> str:
    """A note for an emulated cell whose expectation is the profile's own (case.toml overrides its
    start method for it) and no results file from the real platform has confirmed."""
    own = PROFILES[profile]
    names = [
        n for n in own.expectation_names if n != own.start_method
    ]  # the profile's and whose it stands for
    if not any((variant, n) in case.expect for n in names) or confirmed(
        own.stands_for or profile, case.name, variant
    ):
        return ""
    return f"<br><small><em>{t('cell.unconfirmed', system=own.platform)}</em></small>"


def comparison_table(
    cases: list[Case], reference: Recorded | None, observed_columns: list, confirmed=lambda *key: False
) -> str:
    """Rows: cases × variants. Columns: each profile from the reference results file (observed or
    emulated, as its heading says), each followed by the columns of that profile that other results
    files ran natively (the real Python 3.14 beside its emulation)."""
    columns = []
    for profile in reference.profiles_run() if reference else PROFILE_NAMES:
        columns += [(reference, profile), *(c for c in observed_columns if c[1] == profile)]
    columns += [c for c in observed_columns if c not in columns]
    heads = [column_head(r, p) if r else PROFILES[p].title for r, p in columns]
    rows = [t("comparison.head") + " | ".join(heads) + " |", "|---" * (2 + len(heads)) + "|"]
    for case in cases:
        link = f"[{case.name}]({case_page_path(case)})"
        for variant in VARIANTS:
            cells = []
            for source, profile in columns:
                text = cell(source.get(case.name, variant, profile) if source else None)
                if source is reference and source and not source.native(profile):
                    text += _unconfirmed(case, variant, profile, confirmed)
                cells.append(text)
            rows.append(f"| {link} | {variant} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def profiles_list(reference: Recorded | None) -> str:
    """What each column imposes in every process, how this machine imitated it, what it cannot show."""
    items = []
    words = wording.PROFILE_TEXT.get(wording.current(), {})
    for profile in PROFILES.values():
        how = reference.emulation(profile.name) if reference else ""
        kind = reference.how_ran(profile.name) if reference and how else "native"
        seen = t(f"profiles.{kind}", how=literal(how))
        imposes, limits = (words.get(text, text) for text in (profile.imposes, profile.limits))
        items.append(
            t(
                "profiles.item",
                title=profile.title,
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
    heads = " | ".join(t("cause.column", profile=profile) for profile in CAUSE_PROFILES)
    rows = [t("cause.head") + heads + " |", "|---" * (5 + len(CAUSE_PROFILES)) + "|"]
    words = wording.CAUSES.get(wording.current())
    missing = [cause[0] for cause in CAUSES if words is not None and cause[0] not in words]
    if missing:
        raise KeyError(f"the cause table has no {wording.current()} words for: {', '.join(missing)}")
    causes = CAUSES if words is None else [(*words[cause[0]], cause[-1]) for cause in CAUSES]
    for aspect, fork, forkserver, spawn, name in causes:
        case = by_name.get(name)
        if case is None:
            raise KeyError(f"the cause table names case {name}, which does not exist")
        link = f"[{case.name}]({case_page_path(case)})"
        seen = [cell(reference.get(name, "broken", p) if reference else None) for p in CAUSE_PROFILES]
        rows.append(f"| {aspect} | {fork} | {forkserver} | {spawn} | {link} | " + " | ".join(seen) + " |")
    return "\n".join(rows) + "\n"


def recorded_list(recorded: list[Recorded]) -> str:
    if not recorded:
        return t("recorded.none")
    items = "\n".join(f"- {r.describe()}" for r in recorded)
    return t("recorded.title") + "\n\n" + "\n".join("    " + line for line in items.splitlines())
