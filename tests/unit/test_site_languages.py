"""The site's two languages, checked without building it: the generated words exist in both, every
page and case README has its pair, the translations keep the structure of the originals, and the
cheat sheet and glossary agree with the catalog."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from harness.cases import discover
from harness.site import navigation, pages, wording

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
URL = re.compile(r"<https?://[^>]+>")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_generated_text_exists_in_every_language_with_the_same_fields():
    for key, texts in wording.TEXT.items():
        assert set(texts) == set(wording.LANGUAGES), key
        assert _fields(texts["zh"]) == _fields(texts["en"]), key
    for title, intro, _ in wording.LESSONS:
        assert set(title) == set(intro) == set(wording.LANGUAGES)
    for lang in wording.LANGUAGES:
        if lang != wording.DEFAULT:  # each row's words by its English aspect, none left over
            assert set(wording.CAUSES[lang]) == {cause[0] for cause in pages.CAUSES}
            assert all(len(words) == 4 for words in wording.CAUSES[lang].values())


def test_every_profile_text_has_its_translation_keyed_by_the_english():
    """The profiles' words (harness/profiles.py) are looked up by their English text, as gettext
    looks up a message: an English sentence changed without its translation fails here."""
    from harness.profiles import PROFILES

    english = {text for p in PROFILES.values() for text in (p.imposes, p.limits) if text}
    for lang in wording.LANGUAGES:
        if lang != wording.DEFAULT:
            assert set(wording.PROFILE_TEXT[lang]) == english, lang
    with wording.language("zh"):
        assert "fork，Linux 上直到 Python 3.13 的默认启动方法。" in pages.profiles_list(None)


def test_a_cause_row_added_in_english_only_fails_naming_it(monkeypatch):
    added = ("Signals", "inherited", "inherited", "default", "01_missing_main_guard")
    monkeypatch.setattr(pages, "CAUSES", [*pages.CAUSES[:2], added, *pages.CAUSES[2:]])
    with wording.language("zh"), pytest.raises(KeyError, match="no zh words for: Signals"):
        pages.cause_table(discover(), None)


def test_text_renders_in_the_current_language_and_names_an_unknown_one():
    assert wording.t("code.heading") == "The code"
    with wording.language("zh"):
        assert wording.t("code.heading") == "代码"
        assert wording.t("cell.mismatch", outcome="crash") == "不一致：预期为 crash"
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
    assert set(URL.findall(chinese)) == set(URL.findall(english)), f"{case.name}: references differ"
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
