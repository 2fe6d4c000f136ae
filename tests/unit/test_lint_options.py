"""`lint` as linters are used: rule choice (--select/--ignore, [tool.dataloader-pitfalls]), `# noqa`,
and the JSON, GitHub and SARIF formats parsed back."""

from __future__ import annotations

import json
import re

import pytest

from harness import links
from harness.commands import user_config
from harness.commands.arguments import UsageError
from harness.lint import RULES, lint_source, select_rules
from harness.lint.formats import RENDERERS, SARIF_SCHEMA
from tests.conftest import ROOT, harness

BROKEN = (ROOT / "cases" / "03_lambda_collate" / "broken.py").read_text()
LAMBDA_LINE = "collate_fn=lambda"


def with_comment(comment: str) -> str:
    lines = BROKEN.splitlines()
    number = next(i for i, line in enumerate(lines) if LAMBDA_LINE in line)
    lines[number] += f"  {comment}"
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("comment", "silenced"),
    [("# noqa", True), ("# noqa: DLP002", True), ("# NOQA:DLP001,DLP002", True), ("# noqa: DLP001", False)],
)
def test_noqa_silences_its_line_or_its_codes(comment, silenced):
    assert [f.code for f in lint_source(BROKEN)] == ["DLP002"]
    assert [f.code for f in lint_source(with_comment(comment))] == ([] if silenced else ["DLP002"])


def test_select_and_ignore_take_codes_and_prefixes_and_name_a_typo():
    assert select_rules() == frozenset(RULES)
    assert select_rules(("DLP00",)) == {f"DLP00{n}" for n in range(1, 10)}
    assert select_rules(("DLP",), ("DLP002", "DLP01", "DLP02")) == {f"DLP00{n}" for n in range(1, 10)} - {
        "DLP002"
    }
    with pytest.raises(ValueError, match="unknown rule code or prefix 'DLP9'"):
        select_rules(("DLP9",))


def test_configuration_is_found_above_the_working_directory(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.dataloader-pitfalls]\nignore = ["DLP002"]\nsite-url = "https://e.org/dp/"\n'
    )
    inner = tmp_path / "src" / "train"
    inner.mkdir(parents=True)
    found = user_config.load(start=inner)
    assert found.ignore == ("DLP002",) and found.site_url == "https://e.org/dp/"
    assert found.path == tmp_path / "pyproject.toml"
    (tmp_path / "pyproject.toml").write_text('[tool.dataloader-pitfalls]\nselct = ["DLP"]\n')
    with pytest.raises(UsageError, match=r"pyproject.toml \[tool.dataloader-pitfalls\]: unknown key 'selct'"):
        user_config.load(start=inner)


def test_the_command_reads_the_users_pyproject_and_its_site_url(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(BROKEN)
    completed = harness("lint", str(script), "--format", "json", cwd=tmp_path)
    assert completed.returncode == 1
    assert json.loads(completed.stdout)[0]["link"] == "cases/03_lambda_collate", "the repository path"
    (tmp_path / "pyproject.toml").write_text('[tool.dataloader-pitfalls]\nsite-url = "https://e.org/dp"\n')
    completed = harness("lint", str(script), "--format", "json", cwd=tmp_path)
    assert json.loads(completed.stdout)[0]["link"] == "https://e.org/dp/cases/03_lambda_collate/"
    (tmp_path / "pyproject.toml").write_text('[tool.dataloader-pitfalls]\nignore = ["DLP002"]\n')
    assert harness("lint", str(script), cwd=tmp_path).returncode == 0
    assert harness("lint", str(script), "--ignore", "DLP001", cwd=tmp_path).returncode == 1, "flag wins"
    bad = harness("lint", str(script), "--select", "XYZ", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown rule code or prefix 'XYZ'" in bad.stderr


GITHUB_LINE = re.compile(r"^::warning file=[^,:]+,line=\d+,col=\d+,title=DLP\d{3}::[^\r\n]+$")


def test_github_annotations_follow_the_workflow_command_syntax():
    findings = lint_source(BROKEN, "cases/03_lambda_collate/broken.py")
    lines = RENDERERS["github"](findings).splitlines()
    assert len(lines) == 1 and GITHUB_LINE.match(lines[0]), lines
    assert lines[0].startswith(
        "::warning file=cases/03_lambda_collate/broken.py,line=21,col=20,title=DLP002::"
    )


def test_json_loads_back_with_every_field():
    findings = lint_source(BROKEN, "train.py")
    (row,) = json.loads(RENDERERS["json"](findings))
    assert row == {
        "path": "train.py",
        "line": 21,
        "col": 20,
        "code": "DLP002",
        "message": findings[0].message,
        "case": "03_lambda_collate",
        "link": "cases/03_lambda_collate",
    }


def test_sarif_has_what_sarif_2_1_0_requires(monkeypatch):
    """No maintained package carries the SARIF schema here, so its required properties are checked:
    version and runs; a run's tool.driver.name; a result's message.text; a rule's id; locations."""
    monkeypatch.setenv(links.SITE_VARIABLE, "https://e.org/dp")
    log = json.loads(RENDERERS["sarif"](lint_source(BROKEN, "src/train.py")))
    assert log["version"] == "2.1.0" and log["$schema"] == SARIF_SCHEMA
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "dataloader-pitfalls" and [r["id"] for r in driver["rules"]] == sorted(RULES)
    assert all(r["helpUri"].startswith("https://e.org/dp/cases/") for r in driver["rules"])
    (result,) = run["results"]
    assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"] == "DLP002"
    assert result["level"] == "warning" and result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "src/train.py"},
        "region": {"startLine": 21, "startColumn": 20},
    }


def test_every_sarif_rule_has_a_name_and_a_help_text():
    log = json.loads(RENDERERS["sarif"]([]))
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule["name"]), rule["name"]
        help_text = rule["help"]["text"]
        for part in ("What it finds:", "Why it is bad:", "Example, from cases/", "Fix:"):
            assert part in help_text, (rule["id"], part)
        assert rule["help"]["markdown"].startswith(f"**{rule['id']} {rule['name']}**")


def test_explain_prints_the_rule_from_its_function_and_its_case():
    completed = harness("lint", "--explain", "dlp004")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert out.startswith("DLP004 (random-generator-on-dataset), case 09_duplicated_randomness")
    assert "A random generator object kept on a Dataset" in out, "what: the rule function's docstring"
    assert "copied into every worker in the same state" in out, "why: case 09's summary"
    assert "self.rng = np.random.default_rng(seed)" in out, "example: the flagged line of broken.py"
    assert "get_worker_info().seed" in out, "fix: case 09's [diagnose] fix"
    unknown = harness("lint", "--explain", "DLP099")
    assert unknown.returncode == 2 and "unknown rule code 'DLP099'" in unknown.stderr
    assert harness("lint").returncode == 2
