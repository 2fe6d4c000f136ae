"""What a case page states is shown: its "How we know" list names the evidence for each mechanism, and
every error line its Symptom quotes was printed by a recorded run (or says why it could not be)."""

from __future__ import annotations

import re

import pytest

from harness import experiments
from harness.cases import discover
from harness.results import RESULTS_DIR
from harness.site.results_data import load_all

SECTIONS = {
    "README.md": ("## Symptom", "## How we know", "## Fix"),
    "README.zh.md": ("## 现象", "## 我们如何知道", "## 修复"),
}
# A line of a quoted block that is an error message: what a reader will search for.
ERROR_LINE = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception|Warning)\b.*|RuntimeError.*|Killed\b.*|.*killed by signal.*)$"
)
# What differs from one run to the next (pids, addresses, paths elided with an ellipsis) matches anything.
VARIABLE = re.compile(r"0x[0-9a-fA-F]+|\d+|…|\.\.\.")
NOT_OBSERVED = re.compile(r"<!--\s*not observed here:\s*\S.*?-->")
EVIDENCE = re.compile(  # a figure, a link, the command that shows it, or a plain mark that nothing does
    r"<!-- dlp:fig |https?://|python -m harness\s|nox -s |\breasoned\b|推理|not\s+recorded|没有记录成"
)


def section(text: str, heading: str) -> str:
    after = text.split(f"\n{heading}\n", 1)
    return after[1].split("\n## ", 1)[0] if len(after) == 2 else ""


def quoted_error_lines(symptom: str) -> list[str]:
    """The error lines of the Symptom's text blocks, except a block marked as not observed here."""
    lines = []
    for match in re.finditer(r"```text\n(.*?)```", symptom, re.S):
        before = symptom[: match.start()].rstrip().splitlines()[-1:] or [""]
        if NOT_OBSERVED.search(before[0]):
            continue
        lines += [line.strip() for line in match.group(1).splitlines() if ERROR_LINE.match(line)]
    return lines


def as_pattern(line: str) -> re.Pattern:
    parts = [re.escape(part) for part in VARIABLE.split(line)]
    return re.compile(r"\S*?".join(parts))


def unrecorded(lines: list[str], outputs: list[str]) -> list[str]:
    return [line for line in lines if not any(as_pattern(line).search(out) for out in outputs)]


def recorded_outputs() -> dict[str, list[str]]:
    """What the recorded runs of each case printed: its runs' output and signatures, and the
    signatures of the experiments about it ("Case NN: ...")."""
    outputs: dict[str, list[str]] = {}
    for recorded in load_all(RESULTS_DIR):
        for run in recorded.data.results:
            text = "\n".join(value or "" for value in (run.output_tail, run.signature, run.reason))
            outputs.setdefault(run.case[:2], []).append(text)
    for recorded in experiments.load_recorded().values():
        about = re.match(r"Cases? ([\d, and]+):", recorded["about"])
        for number in re.findall(r"\d\d", about[1] if about else ""):
            outputs.setdefault(number, []).extend(run.get("signature") or "" for run in recorded["runs"])
    return outputs


@pytest.fixture(scope="module")
def outputs():
    return recorded_outputs()


@pytest.mark.parametrize("name", SECTIONS)
@pytest.mark.parametrize("case", discover(), ids=lambda case: case.name)
def test_every_case_page_says_how_we_know_after_why(case, name):
    text = (case.path / name).read_text(encoding="utf-8")
    _, how, fix = SECTIONS[name]
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert how in headings, f"{case.name}/{name} has no {how} section (after the Why)"
    assert headings.index(how) == headings.index(fix) - 1, f"{case.name}/{name}: {how} comes before {fix}"
    bullets = [line for line in section(text, how).splitlines() if line.startswith("- ")]
    assert bullets, f"{case.name}/{name}: {how} lists nothing"
    items = re.split(r"\n(?=- )", section(text, how).strip())
    bare = [item.splitlines()[0] for item in items if item.startswith("- ") and not EVIDENCE.search(item)]
    assert not bare, f"{case.name}/{name}: shown by nothing, not marked as reasoned: {bare}"


@pytest.mark.parametrize("name", SECTIONS)
@pytest.mark.parametrize("case", discover(), ids=lambda case: case.name)
def test_every_quoted_error_was_printed_by_a_recorded_run(case, name, outputs):
    text = (case.path / name).read_text(encoding="utf-8")
    lines = quoted_error_lines(section(text, SECTIONS[name][0]))
    missing = unrecorded(lines, outputs.get(case.number, []))
    assert not missing, (
        f"{case.name}/{name} quotes what no recorded run printed: {missing} (record a run that shows "
        "it, or mark its block <!-- not observed here: WHY -->)"
    )


def test_a_quoted_error_no_run_printed_is_named():
    symptom = "x\n\n```text\nRuntimeError: DataLoader worker (pid 12) is killed by signal: Killed.\n```\n"
    lines = quoted_error_lines(symptom)
    assert lines == ["RuntimeError: DataLoader worker (pid 12) is killed by signal: Killed."]
    assert unrecorded(lines, ["RuntimeError: DataLoader worker (pid(s) 7278) exited unexpectedly"]) == lines
    assert (
        unrecorded(lines, ["...\nRuntimeError: DataLoader worker (pid 7266) is killed by signal: Killed.\n"])
        == []
    )


def test_a_block_marked_as_not_observed_is_left_out_and_the_mark_needs_a_reason():
    marked = "<!-- not observed here: no GPU -->\n```text\nRuntimeError: CUDA error\n```\n"
    assert quoted_error_lines(marked) == []
    assert quoted_error_lines(marked.replace(" no GPU", "")) == ["RuntimeError: CUDA error"]


def test_addresses_and_elisions_match_any_run_s_own():
    line = "_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f3a2c1e0>: attribute lookup"
    assert as_pattern(line).search(
        "_pickle.PicklingError: Can't pickle <function <lambda> at 0x7fee01>: attribute lookup"
    )
    assert not as_pattern(line).search(
        "_pickle.PicklingError: Can't pickle <function main>: attribute lookup"
    )


def test_case_22_s_error_follows_the_socket_file_as_its_page_says():
    """Case 22 says ConnectionRefusedError comes when the sender's socket file is still there and
    FileNotFoundError when it was removed: every recorded file_descriptor run agrees, and both occur."""
    recorded = experiments.load_recorded()["tensor_sender_exit_delay"]
    seen = set()
    for run in recorded["runs"]:
        present = run["measured"].get("socket_file_present")
        if not present:
            continue
        error = "ConnectionRefusedError" if present == [1.0] else "FileNotFoundError"
        assert run["signature"].startswith(error), (run["label"], present, run["signature"])
        seen.add(error)
    assert seen == {"ConnectionRefusedError", "FileNotFoundError"}
