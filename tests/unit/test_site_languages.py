"""The site's two languages, checked without building it: the generated words exist in both, every
page and case README has its pair, the translations keep the structure of the originals, and the
cheat sheet and glossary agree with the catalog."""

from __future__ import annotations

import re
import string
import sys
from pathlib import Path

import pytest

from harness.cases import discover
from harness.site import navigation, pages, wording

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
URL = re.compile(r"<(https?://[^>]+)>|\]\((https?://[^)\s]+)\)")  # bare, or a link's target


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def used_messages() -> dict[str, str]:
    """{message: where} for every message the site's code translates: the literal first argument of
    each `t(...)` and `N_(...)` in harness/site/, and the data it passes to `t` (the profiles'
    titles and words, the confinements' exercise notes, the cells of the table of differences)."""
    import ast

    from harness.profiles import PROFILES
    from harness.run import confine

    found = {}
    for path in sorted((ROOT / "harness" / "site").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node, "func", None)
            if isinstance(node, ast.Call) and isinstance(called, ast.Name) and called.id in ("t", "N_"):
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.setdefault(first.value, f"{path.name}:{node.lineno}")
    for profile in PROFILES.values():
        for text in (profile.title, profile.imposes, profile.limits):
            if text:
                found.setdefault(text, f"harness/profiles.py ({profile.name})")
    for way in confine.ORDER:
        found.setdefault(way.exercise, f"harness/run/confine ({way.setting})")
    for row in pages.CAUSES:
        for text in row[:4]:
            found.setdefault(text, "harness/site/pages.py CAUSES")
    return found


@pytest.mark.parametrize("lang", [lang for lang in wording.LANGUAGES if lang != wording.DEFAULT])
def test_every_message_the_code_uses_is_translated_with_the_same_fields(lang):
    catalog = wording.catalog(lang)
    used = used_messages()
    assert len(used) > 150, "the extraction finds the messages"
    missing = [f"{where}: {message!r}" for message, where in used.items() if message not in catalog]
    assert missing == [], f"no translation in {wording.catalog_path(lang)}"
    fields = [m for m in used if _fields(catalog[m]) != _fields(m)]
    assert fields == [], "a translation's {fields} differ from its message's"


@pytest.mark.parametrize("lang", [lang for lang in wording.LANGUAGES if lang != wording.DEFAULT])
def test_every_catalog_entry_is_a_message_the_code_uses(lang):
    stale = sorted(set(wording.catalog(lang)) - set(used_messages()))
    assert stale == [], f"entries of {wording.catalog_path(lang)} that no code says any more"


def test_the_extraction_sees_a_message_in_a_call_and_a_marker(tmp_path, monkeypatch):
    site = tmp_path / "harness" / "site"
    site.mkdir(parents=True)
    (site / "page.py").write_text('x = t("Seen in a call {n}", n=1)\nY = {"a": N_("Marked")}\nz = t(y)\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = used_messages()
    assert {"Seen in a call {n}", "Marked"} <= set(found) and "y" not in found


def test_a_cause_row_added_in_english_only_fails_naming_it(monkeypatch):
    added = ("Signals", "inherited", "inherited", "default", "01_missing_main_guard")
    monkeypatch.setattr(pages, "CAUSES", [*pages.CAUSES[:2], added, *pages.CAUSES[2:]])
    with wording.language("zh"), pytest.raises(wording.MissingTranslation, match="translation of 'Signals'"):
        pages.cause_table(discover(), None)


def test_text_renders_in_the_current_language_and_names_an_unknown_one():
    assert wording.t("The code") == "The code"
    with wording.language("zh"):
        assert wording.t("The code") == "代码"
        assert wording.t("MISMATCH: expected {outcome}", outcome="crash") == "不一致：预期为 crash"
        assert "fork，Linux 上直到 Python 3.13 的默认启动方法。" in pages.profiles_list(None)
    assert wording.current() == "en"
    with pytest.raises(ValueError, match="unknown language 'fr'"), wording.language("fr"):
        pass


def test_a_page_in_one_language_only_is_named(tmp_path):
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.zh.md").write_text("# 乙\n")
    (tmp_path / "c.md").write_text("# C\n")
    (tmp_path / "c.zh.md").write_text("# 丙\n")
    with pytest.raises(navigation.LanguageError) as raised:
        navigation.check_pairs(tmp_path, [])
    message = str(raised.value)
    assert f"{tmp_path / 'a.zh.md'} (简体中文, beside a.md)" in message
    assert f"{tmp_path / 'b.md'} (English, beside b.zh.md)" in message
    assert "c.md" not in message and "c.zh.md" not in message


def test_a_case_readme_in_one_language_only_is_named(tmp_path):
    case = discover()[2]
    copy = tmp_path / case.name
    copy.mkdir()
    (copy / "README.md").write_text("# 03\n")
    moved = type(case)(**{**case.__dict__, "path": copy})
    with pytest.raises(navigation.LanguageError, match=re.escape(f"{copy / 'README.zh.md'} (简体中文)")):
        navigation.check_pairs(tmp_path / "docs-none", [moved])


def test_the_real_pages_and_cases_all_have_both_languages():
    navigation.check_pairs(DOCS, discover())
    navigation.check_lessons(discover())


def test_the_learning_path_names_a_case_left_out_or_listed_twice(monkeypatch):
    lessons = [(title, intro, list(names)) for title, intro, names in wording.LESSONS]
    lessons[0][2].remove("01_missing_main_guard")
    lessons[1][2].append("03_lambda_collate")
    monkeypatch.setattr(navigation, "LESSONS", lessons)
    with pytest.raises(navigation.LanguageError) as raised:
        navigation.check_lessons(discover())
    assert "01_missing_main_guard is in no lesson" in str(raised.value)
    assert "03_lambda_collate is in more than one lesson" in str(raised.value)


def urls(text: str) -> set[str]:
    return {bare or target for bare, target in URL.findall(text)}


@pytest.mark.parametrize("case", discover(), ids=lambda case: case.name)
def test_a_translated_readme_keeps_the_structure_of_the_original(case):
    """Same sections, placeholders, code blocks, tabs and references: nothing dropped."""
    english = (case.path / "README.md").read_text(encoding="utf-8")
    chinese = (case.path / "README.zh.md").read_text(encoding="utf-8")
    for pattern in (r"^## ", r"<!-- dlp:\w+ -->", r"^```", r'^=== "', r"^!!! "):
        found = [len(re.findall(pattern, text, re.MULTILINE)) for text in (english, chinese)]
        assert found[0] == found[1], (
            f"{case.name}: {pattern!r} {found[0]} times in English, {found[1]} in Chinese"
        )
    assert urls(chinese) == urls(english), f"{case.name}: references differ"
    assert chinese.startswith(f"# {case.number} · ")
    assert re.search(r"[\u4e00-\u9fff]", chinese), f"{case.name}: README.zh.md has no Chinese"


@pytest.mark.parametrize("page", ["cheatsheet.md", "cheatsheet.zh.md"])
def test_the_cheat_sheet_has_every_case_with_its_lint_rules(page):
    rows = {}
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| \[(\d{2})\]\(cases/(\w+)\.md\) \|", line)
        if found:
            rows[found[2]] = set(re.findall(r"DLP\d{3}", line.rsplit("|", 2)[-2]))
    cases = discover()
    assert list(rows) == [name for _, _, names in wording.LESSONS for name in names], "learning-path order"
    for case in cases:
        codes = set(case.recognition.lint) if case.recognition else set()
        assert rows[case.name] == codes, f"{page}: {case.name} lists {rows[case.name]}, case.toml {codes}"


def test_the_glossaries_list_the_same_terms_and_feed_the_search():
    def first_column(page: str) -> list[str]:
        lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
        return [line.split("|")[1].strip() for line in lines if line.startswith("| ") and "---" not in line][
            1:
        ]

    assert first_column("glossary.md") == first_column("glossary.zh.md")
    terms = navigation.glossary_terms(DOCS)
    assert {"写时复制", "启动方法", "守护进程", "共享内存"} <= set(terms)
    assert all(re.fullmatch(r"[\u4e00-\u9fff]+", term) for term in terms)


CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"


@pytest.mark.parametrize(
    "path",
    sorted(DOCS.glob("*.zh.md")) + sorted((ROOT / "cases").glob("*/README.zh.md")),
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_chinese_paragraphs_are_not_broken_between_two_chinese_characters(path):
    """A line break inside a paragraph renders as a space, which between two Chinese characters
    is a gap no Chinese writer leaves: such paragraphs are written on one line."""
    fence = False
    previous = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.search(CJK + "$", previous) and re.match(CJK, line.lstrip()):
            pytest.fail(f"{path.name}:{number}: a line break between two Chinese characters")
        previous = "" if fence else line
