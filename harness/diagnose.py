"""Matching what `check` observed in a script against the catalog of known pitfalls."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.cases import Case
from harness.lint import Finding
from harness.results import RunResult


@dataclass
class Diagnosis:
    """A known pitfall found in the script, with the evidence for it."""

    case: Case
    runtime: list[str] = field(default_factory=list)  # "windows: crash: RuntimeError: …"
    lint: list[Finding] = field(default_factory=list)

    @property
    def strength(self) -> tuple[int, int]:
        """Run-time evidence with a specific pattern first, then lint-only matches."""
        recognition = self.case.recognition
        specific = bool(recognition and (recognition.signature or recognition.stacks))
        return (bool(self.runtime) * (2 if specific else 1), len(self.lint))

    def to_json(self) -> dict:
        return {
            "case": self.case.name,
            "title": self.case.title,
            "why": " ".join(self.case.summary.split()),
            "fix": self.case.recognition.fix if self.case.recognition else "",
            "case_path": f"cases/{self.case.name}/",
            "docs_page": f"cases/{self.case.name}/",
            "runtime_evidence": self.runtime,
            "lint_evidence": [str(f) for f in self.lint],
        }


def _shows(result: RunResult, case: Case) -> bool:
    recognition = case.recognition
    if result.outcome != recognition.outcome:
        return False
    if recognition.signature and not (
        re.search(recognition.signature, result.signature)
        or re.search(recognition.signature, result.output_tail)
    ):
        return False
    if recognition.stacks:
        stacks = "\n".join([*result.stacks.values(), *result.native_stacks.values()])
        if not re.search(recognition.stacks, stacks):
            return False
    return True


def runtime_evidence(case: Case, results: list[RunResult]) -> list[str]:
    """The runs that show the case's run-time pattern; [] unless the whole pattern holds."""
    recognition = case.recognition
    if recognition is None or recognition.outcome is None:
        return []
    observed = [r for r in results if r.outcome.was_judged]
    inside = [r for r in observed if {r.profile, r.start_method} & set(recognition.methods)]
    outside = [r for r in observed if r not in inside]
    if not inside or not all(_shows(r, case) for r in inside):
        return []
    if any(_shows(r, case) for r in outside):
        return []  # the same cause outside these profiles too: not this pitfall
    # A failure outside them with another cause (fork crashing for some other reason) is no veto.
    return [f"{r.profile}: {r.outcome}: {r.signature}" for r in inside]


def diagnose(cases: list[Case], results: list[RunResult], findings: list[Finding]) -> list[Diagnosis]:
    """Every catalog case that the runs or the static findings point to, strongest first."""
    diagnoses = []
    for case in cases:
        if case.recognition is None:
            continue
        diagnosis = Diagnosis(
            case=case,
            runtime=runtime_evidence(case, results),
            lint=[f for f in findings if f.code in case.recognition.lint],
        )
        if diagnosis.runtime or diagnosis.lint:
            diagnoses.append(diagnosis)
    return sorted(diagnoses, key=lambda d: d.strength, reverse=True)
