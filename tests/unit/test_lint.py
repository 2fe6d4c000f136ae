"""The static rules, one sample file per rule (tests/lint_samples/dlp0NN.py), as flake8-bugbear
tests its checks: each line that must be flagged ends with a `# DLP0NN` mark, the near misses are
unmarked, and the findings in the file must be exactly the marked ones."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from harness.lint import RULES, lint_source
from harness.lint.facts import collect

SAMPLES = Path(__file__).resolve().parents[1] / "lint_samples"
MARK = re.compile(r"#\s*((?:DLP\d{3}\s*)+)")


def marked(source: str) -> set[tuple[int, str]]:
    """(line, code) for every `# DLP0NN` mark in the source."""
    return {
        (number, code)
        for number, line in enumerate(source.splitlines(), start=1)
        if (mark := MARK.search(line))
        for code in mark.group(1).split()
    }


def sample(code: str) -> tuple[Path, str]:
    path = SAMPLES / f"{code.lower()}.py"
    return path, path.read_text(encoding="utf-8")


def test_every_rule_has_a_sample_and_every_sample_a_rule():
    assert {p.stem.upper() for p in SAMPLES.glob("dlp*.py")} == set(RULES)


@pytest.mark.parametrize("code", sorted(RULES))
def test_sample_findings_are_exactly_the_marked_lines(code):
    path, source = sample(code)
    expected = marked(source)
    assert any(c == code for _, c in expected), f"{path.name} marks no {code} line"
    found = [(f.line, f.code) for f in lint_source(source, str(path))]
    assert sorted(set(found)) == sorted(expected)


@pytest.mark.parametrize("code", sorted(RULES))
def test_no_finding_is_reported_twice(code):
    path, source = sample(code)
    counts = Counter((f.line, f.col, f.code) for f in lint_source(source, str(path)))
    assert [key for key, n in counts.items() if n > 1] == []


def test_notebook_code_drops_only_the_rules_that_assume_a_main_script():
    for code in RULES:
        path, source = sample(code)
        in_notebook = {(f.line, f.code) for f in lint_source(source, str(path), notebook=True)}
        script_only = {c for c, rule in RULES.items() if rule.script_only}
        assert in_notebook == {(n, c) for n, c in marked(source) if c not in script_only}
    assert {"DLP001", "DLP008", "DLP020"} == {c for c, rule in RULES.items() if rule.script_only}


def test_output_is_ruff_style_with_the_case():
    _, source = sample("DLP002")
    finding = next(f for f in lint_source(source, "train.py") if f.line == 30)
    assert str(finding) == (
        "train.py:30:51: DLP002 `collate_fn` is a lambda or a nested function: spawn cannot pickle it "
        "(see cases/03_lambda_collate)"
    )


def test_rules_do_not_depend_on_each_others_order():
    """Each rule reads the module's facts, collected once: any order gives the same findings."""
    _, source = sample("DLP009")
    facts = collect(ast.parse(source))
    forward = [list(RULES[c].check(facts)) for c in sorted(RULES)]
    backward = [list(RULES[c].check(facts)) for c in sorted(RULES, reverse=True)][::-1]
    assert forward == backward


@pytest.mark.parametrize(
    "worker_init",
    ["functools.partial(log_to_queue, queue)", "setup_logging"],
    ids=["the fixes.worker_logging helper", "a function of another module"],
)
def test_dlp016_not_where_workers_set_their_logging_up_elsewhere(worker_init):
    _, source = sample("DLP016")
    plain = "DataLoader(Samples(), num_workers=2)"
    assert plain in source
    source = source.replace(plain, f"DataLoader(Samples(), num_workers=2, worker_init_fn={worker_init})")
    assert [f.code for f in lint_source(source, "train.py")] == []


def test_each_rule_points_at_the_case_whose_case_toml_lists_it():
    """The rule↔case map is stated twice (the Rule's case, case.toml's [diagnose] lint): they agree."""
    from harness.cases import discover
    from harness.lint import RULES

    listed: dict[str, list[str]] = {}
    for case in discover():
        for code in case.recognition.lint if case.recognition else ():
            listed.setdefault(code, []).append(case.name)
    disagree = {
        code: (rule.case, listed.get(code)) for code, rule in RULES.items() if listed.get(code) != [rule.case]
    }
    assert not disagree, f"rule: (its case, the cases whose case.toml lists it): {disagree}"
    assert set(listed) <= set(RULES), f"case.toml names unknown rules: {set(listed) - set(RULES)}"


@pytest.mark.parametrize("page", ["lint.md", "lint.zh.md"])
def test_the_lint_page_lists_every_rule_once_with_its_case(page):
    text = (Path(__file__).resolve().parents[2] / "docs" / page).read_text(encoding="utf-8")
    rows = re.findall(r"^\| (DLP\d{3}) \| .* \| (\d{2}) \|$", text, flags=re.M)
    assert rows == [(code, rule.case[:2]) for code, rule in RULES.items()]


def test_a_rule_registered_twice_or_misnamed_is_refused():
    from harness.lint.registry import rule

    def check(facts):
        yield from ()

    with pytest.raises(ValueError, match="DLP001 dataloader-outside-main-guard repeats DLP001"):
        rule("DLP001", "dataloader-outside-main-guard", "01_missing_main_guard", "m")(check)
    with pytest.raises(ValueError, match="'Bad_Name' is not of the form"):
        rule("DLP099", "Bad_Name", "01_missing_main_guard", "m")(check)


# PyTorch's documentation, torch.utils.data.IterableDataset, "Example 2: splitting workload across
# all workers using worker_init_fn" (https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset),
# as printed there.
DOCS_ITERABLE_EXAMPLE = """
import math
import torch

class MyIterableDataset(torch.utils.data.IterableDataset):
    def __init__(self, start, end):
        super(MyIterableDataset).__init__()
        assert end > start, "this example code only works with end >= start"
        self.start = start
        self.end = end

    def __iter__(self):
        return iter(range(self.start, self.end))

ds = MyIterableDataset(start=3, end=7)

def worker_init_fn(worker_id):
    worker_info = torch.utils.data.get_worker_info()
    dataset = worker_info.dataset  # the dataset copy in this worker process
    overall_start = dataset.start
    overall_end = dataset.end
    # configure the dataset to only process the split workload
    per_worker = int(math.ceil((overall_end - overall_start) / float(worker_info.num_workers)))
    worker_id = worker_info.id
    dataset.start = overall_start + worker_id * per_worker
    dataset.end = min(dataset.start + per_worker, overall_end)

print(list(torch.utils.data.DataLoader(ds, num_workers=2, worker_init_fn=worker_init_fn)))
"""


def test_the_documentations_split_in_worker_init_fn_is_no_finding():
    """DLP005 looks wherever the stream can be split before it fires (issue 42): the documented
    split per worker in worker_init_fn gets no finding; a worker_init_fn that only reads
    get_worker_info() to seed leaves the risk, and says it is one."""
    # DLP001 is true there: the example makes its loader at module level, with no main guard
    assert [f.code for f in lint_source(DOCS_ITERABLE_EXAMPLE, "docs_example.py")] == ["DLP001"]
    seeding_only = DOCS_ITERABLE_EXAMPLE.replace(
        "    dataset.start = overall_start + worker_id * per_worker\n"
        "    dataset.end = min(dataset.start + per_worker, overall_end)\n",
        "    torch.manual_seed(worker_info.seed)\n",
    )
    (finding,) = [f for f in lint_source(seeding_only, "seeding.py") if f.code == "DLP005"]
    assert "a risk that each worker yields every item" in finding.message
