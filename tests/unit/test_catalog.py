"""The case catalog: every case folder is complete, and cases can be named several ways."""

from __future__ import annotations

import pytest

from harness.cases import CASES_DIR, CaseError, select

CASE_FILES = (
    "broken.py",
    "fixed.py",
    "case.toml",
    "README.md",
    "README.zh.md",
)  # the README in both languages


def test_every_case_folder_has_its_five_files(catalog):
    assert catalog, "no cases found"
    for case in catalog:
        files = {p.name for p in case.path.iterdir() if p.is_file()}
        assert files >= set(CASE_FILES), case.name
        for extra in files - set(CASE_FILES):
            # Only a module that the scripts import (07 keeps its Dataset beside the "notebook").
            assert extra.endswith(".py"), f"{case.name}: unexpected file {extra}"
            module = extra.removesuffix(".py")
            assert any(
                f"import {module}" in case.script(v).read_text()
                or f"from {module} import" in case.script(v).read_text()
                for v in ("broken", "fixed")
            ), f"{case.name}: {extra} unused"


def test_case_scripts_contain_no_harness_code(catalog):
    for case in catalog:
        for variant in ("broken", "fixed"):
            source = case.script(variant).read_text()
            assert "harness" not in source and "set_start_method" not in source, case.script(variant)


def test_readme_follows_the_outline(catalog):
    for case in catalog:
        readme = (case.path / "README.md").read_text()
        headings = [line for line in readme.splitlines() if line.startswith("## ")]
        assert headings == ["## Symptom", "## Why", "## How we know", "## Fix", "## References"], case.name
        fix = readme.split("## Fix")[1].split("## References")[0]
        assert "<!-- dlp:diff -->" in fix, f"{case.name}: the Fix shows the real diff (no pasted code)"


@pytest.mark.parametrize(
    "name", ["1", "01", "missing_main_guard", "01_missing_main_guard", "cases/01_missing_main_guard/"]
)
def test_select_by_number_slug_or_folder(catalog, name):
    assert [case.name for case in select(catalog, [name])] == ["01_missing_main_guard"]


def test_select_nothing_means_everything(catalog):
    assert select(catalog, []) == catalog


def test_unknown_case_lists_valid_ones(catalog):
    with pytest.raises(CaseError, match="unknown case '42'; valid cases: 01_missing_main_guard"):
        select(catalog, ["42"])


def test_cases_dir_is_the_repository_folder():
    assert CASES_DIR.name == "cases" and (CASES_DIR.parent / "harness").is_dir()
