"""Where two columns of one profile disagree, cell by cell: a run on the real system (or interpreter,
or under Wine) against the emulation of it, signature against signature."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..cases import VARIANTS, Case
from ..outcomes import Outcome
from ..profiles import PROFILES
from ..results import RunResult
from .badges import badge, literal, short
from .pages import case_page_path
from .results_data import Recorded
from .wording import N_, t

WIDTH = 160  # characters of a signature shown
# What differs between any two runs, the same system or not: object addresses, pids, the names of
# torch's shared-memory files (made of a pid and a random number) and time-stamped folder names.
RUN_SPECIFIC = (
    (re.compile(r"0x[0-9a-f]+"), "0x…"),
    (re.compile(r"torch_\d+_\d+_\d+"), "torch_…"),
    (re.compile(r"\d{8}-\d{6}-\d{6}"), "…"),
    (re.compile(r"pid\(s\) [\d, ]+"), "pid(s) …"),
)


@dataclass(frozen=True)
class Column:
    source: Recorded
    profile: str
    label: str  # how the page names it


def pairs(reference: Recorded | None, observed: list[tuple[Recorded, str]]) -> list[tuple[Column, Column]]:
    """(real, emulated): each observed column whose profile the reference file emulated (or ran
    as that system's own binaries, under Wine), and each column of another system's own binaries
    in the reference against the reference's emulation of that system."""
    if reference is None:
        return []
    found = [
        (Column(source, profile, t("`{profile}` observed ({label})", profile=profile, label=source.label())),
         Column(reference, profile, _here(reference, profile)))
        for source, profile in observed
        if reference.how_ran(profile) != "native"
    ]  # fmt: skip
    for foreign in (name for name in reference.profiles_run() if reference.ran_foreign(name)):
        for emulation in (p.name for p in PROFILES.values() if p.stands_for == foreign):
            found.append((Column(reference, foreign, _here(reference, foreign)),
                          Column(reference, emulation, _here(reference, emulation))))  # fmt: skip
    return found


HOW_RAN = {"emulated": N_("`{profile}` emulated here"), "wine": N_("`windows` (Windows binaries under Wine)")}


def _here(reference: Recorded, profile: str) -> str:
    return t(HOW_RAN[reference.how_ran(profile)], profile=profile)


def listed(cases: list[Case], compared: list[tuple[Column, Column]]) -> str:
    """A table per pair with every cell that differs (or a line saying that none does)."""
    blocks = []
    for real, emulated in compared:
        rows = [
            _row(case, variant, mine, theirs)
            for case in cases
            for variant in VARIANTS
            if (mine := real.source.get(case.name, variant, real.profile))
            and (theirs := emulated.source.get(case.name, variant, emulated.profile))
            and comparable(mine) != comparable(theirs)
        ]
        intro = t(
            "{real} against {emulated}: cells that differ, {count}.",
            real=real.label,
            emulated=emulated.label,
            count=len(rows),
        )
        head = t("| case | variant | {real} | {emulated} |", real=real.label, emulated=emulated.label)
        blocks.append("\n".join([intro, "", head, "| --- | --- | --- | --- |", *rows] if rows else [intro]))
    return (
        "\n\n".join(blocks) + "\n"
        if blocks
        else t("No results file holds a column observed on its own system beside an emulated one yet.\n")
    )


def comparable(result: RunResult) -> tuple[Outcome, str]:
    """A cell as compared: its outcome and signature, less what differs between any two runs."""
    signature = result.signature
    for pattern, stands_for in RUN_SPECIFIC:
        signature = pattern.sub(stands_for, signature)
    return result.outcome, signature


def _row(case: Case, variant: str, mine: RunResult, theirs: RunResult) -> str:
    return f"| [{case.name}]({case_page_path(case)}) | {variant} | {_cell(mine)} | {_cell(theirs)} |"


def _cell(result: RunResult) -> str:
    detail = result.signature or (result.reason if result.outcome is Outcome.SKIPPED else "")
    return badge(result) + (f" <code>{literal(short(detail, WIDTH))}</code>" if detail else "")
