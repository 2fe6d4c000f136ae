"""Matching what `check` observed in a script against the catalog of known pitfalls.

A case is a **pitfall** when the runs show its pattern or its measurement confirms it; a lint
finding that no run confirmed is a **risk**, unless a run refuted it: then it is **fine here**, with
the measurement (or the runs) that say so; a finding whose measurement could not be made here (no
worker ran long enough, no second epoch) is **unjudged**, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cases import Case
from .links import case_page
from .lint import Finding
from .measurements import MEASURES, ONLY_WHERE_SUSPECTED, Measurement
from .outcomes import Outcome
from .recognition import Pattern, held_object, matching_line, shows
from .results import RunResult

PITFALL, RISK, UNJUDGED, FINE = "pitfall", "risk", "unjudged", "fine"
STATUSES = (FINE, UNJUDGED, RISK, PITFALL)  # weakest first


@dataclass
class Diagnosis:
    """A known pitfall suspected or found in the script, with the evidence for and against it."""

    case: Case
    runtime: list[str] = field(default_factory=list)  # "windows: crash: RuntimeError: …"
    lint: list[Finding] = field(default_factory=list)
    measured: Measurement | None = None
    status: str = PITFALL
    why: str = ""  # for a risk, why the runs could not tell; for fine, what showed it
    versions: str = ""  # where the runs split by Python version: under which it showed, and not

    @property
    def strength(self) -> tuple[int, int, int]:
        """Pitfalls before risks; run-time evidence with a specific pattern first, then lint-only."""
        observed = bool(self.runtime) * (2 if _specific(self.case) else 1) + bool(
            self.measured and self.measured.confirmed
        )
        return (STATUSES.index(self.status), observed, len(self.lint))

    @property
    def evidence(self) -> list[str]:
        measured = [self.measured.text] if self.measured and self.measured.confirmed else []
        return [*self.runtime, *measured, *(f.code for f in self.lint)]

    def to_json(self) -> dict:
        return {
            "case": self.case.name,
            "title": self.case.title,
            "status": self.status,
            "why": " ".join(self.case.summary.split()),
            "mechanism": self.case.recognition.mechanism if self.case.recognition else "",
            "fix": self.case.recognition.fix if self.case.recognition else "",
            "case_path": f"cases/{self.case.name}/",
            "docs_page": case_page(self.case.name),
            "runtime_evidence": self.runtime,
            "measurement": self.measured.text if self.measured else "",
            "verdict": self.why,
            "versions": self.versions,
            "lint_evidence": [str(f) for f in self.lint],
        }


def _inside(pattern: Pattern | None, results: list[RunResult]) -> list[RunResult]:
    """The judged runs under the profiles where the pattern shows."""
    methods = set(pattern.methods) if pattern else set()
    return [r for r in results if r.outcome.was_judged and {r.profile, r.start_method} & methods]


def _pattern_evidence(pattern: Pattern, results: list[RunResult]) -> tuple[list[str], str]:
    """The runs that show `pattern` as a whole, as evidence lines, and where those under its
    profiles split by Python version, the split in words; ([], "") where the pattern does not hold."""
    inside = _inside(pattern, results)
    showing = [r for r in inside if shows(r, pattern)]
    if pattern.any_run:
        return [_evidence_line(r, pattern) for r in showing], ""
    outside = [r for r in results if r.outcome.was_judged and r not in inside]
    if not showing or any(shows(r, pattern) for r in outside):
        return [], ""  # the same cause outside these profiles too: not this pitfall
    others = [r for r in inside if r not in showing]
    split = version_split(showing, others)
    if others and not split:
        return [], ""
    # A failure outside them with another cause (fork crashing for some other reason) is no veto,
    # nor a run inside them under another Python version (the split is said).
    return [_evidence_line(r, pattern) for r in showing], split


def _python(result: RunResult) -> str:
    return result.how.python if result.how else ""


def version_split(showing: list[RunResult], others: list[RunResult]) -> str:
    """Where the runs that show a pattern and the runs under the same profiles that do not were
    made with different Python versions (as each run recorded), with no version on both sides:
    the split in words; "" where there is no such split."""
    shown = {_python(r) for r in showing}
    not_shown = {_python(r) for r in others}
    if not others or "" in shown | not_shown or shown & not_shown:
        return ""

    def side(runs: list[RunResult]) -> str:
        by_version = sorted({_python(r) for r in runs})
        return "; ".join(
            f"Python {v} ({', '.join(f'{r.profile}: {r.outcome}' for r in runs if _python(r) == v)})"
            for v in by_version
        )

    return f"shows under {side(showing)}; not under {side(others)}"


def _evidence_line(result: RunResult, pattern: Pattern) -> str:
    line = f"{result.profile}: {result.outcome}: {result.signature}"
    matched = matching_line(result, pattern)
    if matched and matched not in result.signature:
        line += f" (raised: {matched})"
    held = held_object(matched)
    return f"{line} (the object that does not pickle: {held})" if held else line


def runtime_evidence(case: Case, results: list[RunResult], linted: bool = True) -> tuple[list[str], str]:
    """The runs that show the first of the case's run-time patterns that holds as a whole, and
    where the runs under its profiles split by Python version, the split in words; ([], "") if none
    holds. A pattern that only confirms the case's lint rules counts where one of them found it
    (`linted`)."""
    recognition = case.recognition
    for pattern in recognition.patterns if recognition else ():
        if pattern.confirms_lint and not linted:
            continue
        evidence, split = _pattern_evidence(pattern, results)
        if evidence:
            return evidence, split
    return [], ""


def _ran_without_it(case: Case, results: list[RunResult]) -> str:
    """For a crash the runs would show: the profiles where the script ran to its end without
    failing; "" unless every one of them did. A run stopped after its first batches proves
    nothing of a loader it had not reached yet (a validation loader after the first epoch)."""
    recognition = case.recognition
    if recognition.outcome is not Outcome.CRASH:
        # a hang or a slow start depends on timing, a wrong result shows only where the script
        # asserts what it expects: a good run proves little
        return ""
    inside = _inside(recognition.primary, results)
    if inside and all(r.outcome is Outcome.OK and r.stopped_after_batches is None for r in inside):
        return f"ran to its end without it under {', '.join(r.profile for r in inside)}"
    return ""


def _unseen(case: Case, results: list[RunResult]) -> str:
    """Why the runs could not tell, in words."""
    recognition = case.recognition
    if recognition.outcome is None:
        return "no run can show it: lint alone names it"
    inside = _inside(recognition.primary, results)
    if not inside:
        return f"no run under {', '.join(recognition.methods)} was judged here"
    stopped = [r.profile for r in inside if r.stopped_after_batches is not None]
    if stopped:
        return (
            f"the runs under {', '.join(stopped)} were stopped after their first batches, before "
            "the code it concerns may have run (--full runs to the end)"
        )
    profiles = ", ".join(r.profile for r in inside)
    if recognition.outcome is Outcome.WRONG:
        return (
            f"the runs under {profiles} failed no assertion (a wrong result shows only where it is checked)"
        )
    return f"the runs under {profiles} did not show it ({recognition.outcome} would)"


def _judge(diagnosis: Diagnosis, results: list[RunResult]) -> None:
    """Sets the status of a diagnosis that has some evidence, and why."""
    measured = diagnosis.measured
    if diagnosis.runtime or (measured and measured.confirmed):
        diagnosis.status = PITFALL
    elif measured and measured.refuted:
        diagnosis.status, diagnosis.why = FINE, measured.text
    elif measured is None and (ran_ok := _ran_without_it(diagnosis.case, results)):
        diagnosis.status, diagnosis.why = FINE, ran_ok
    elif measured and not diagnosis.runtime:
        # the measurement that judges this finding could not be made here: said, not alarmed
        diagnosis.status, diagnosis.why = UNJUDGED, measured.text
    else:
        diagnosis.status = RISK
        diagnosis.why = measured.text if measured else _unseen(diagnosis.case, results)


def diagnose(cases: list[Case], results: list[RunResult], findings: list[Finding]) -> list[Diagnosis]:
    """Every catalog case that the runs, the measurements or the static findings point to:
    pitfalls first, then risks, then what was suspected and found fine."""
    judged = [r for r in results if r.outcome.was_judged]
    diagnoses = []
    for case in cases:
        recognition = case.recognition
        if recognition is None:
            continue
        lint = [f for f in findings if f.code in recognition.lint]
        measure = MEASURES.get(recognition.measure or "")
        if recognition.measure in ONLY_WHERE_SUSPECTED and not lint:
            measure = None
        runtime, versions = runtime_evidence(case, results, linted=bool(lint))
        diagnosis = Diagnosis(
            case=case,
            runtime=runtime,
            lint=lint,
            measured=measure(judged, case) if measure else None,
            versions=versions,
        )
        if diagnosis.runtime or diagnosis.lint or (diagnosis.measured and diagnosis.measured.confirmed):
            _judge(diagnosis, results)
            diagnoses.append(diagnosis)
    return sorted(_most_specific(diagnoses), key=lambda d: d.strength, reverse=True)


def _specific(case: Case) -> bool:
    return case.recognition.specific


def _most_specific(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """Without a case whose pattern (a hang under fork, say) is shown by the same runs as a case
    with a more specific one (that hang, in libgomp): the specific one explains them."""
    specific = [d for d in diagnoses if d.runtime and _specific(d.case)]
    return [
        d
        for d in diagnoses
        if _specific(d.case)
        or d.lint
        or not d.runtime
        or not any(set(d.runtime) <= set(s.runtime) for s in specific)
    ]
