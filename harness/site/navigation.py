"""The site in two languages: every page in both, the learning path, the navigation, search terms.

A page in docs/ is `name.md` in English and `name.zh.md` in Chinese; a case has `README.md` and
`README.zh.md`. The build fails when either of a pair is missing (check_pairs), so that no page
silently falls back to the other language.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..cases import Case
from . import wording
from .pages import README_NAMES, case_page_path, readme
from .wording import LANGUAGES, LESSONS, SECTIONS, t

LANGUAGE_NAMES = {"en": "English", "zh": "简体中文"}
# The pages of the navigation's sections, in order: "Start here" before the lessons, then the manual
# (how to run and read everything, moved here from the README), then "Reference", which any other
# page of docs/ joins.
START_PAGES = ["index.md", "start-method.md", "cheatsheet.md"]
MANUAL_PAGES = [
    "setup.md", "profiles.md", "reading-results.md", "check.md", "lint.md", "bench.md", "development.md",
]  # fmt: skip
REFERENCE_PAGES = ["comparison.md", "glossary.md"]
GLOSSARY = "glossary.zh.md"
HAN = re.compile(r"[\u4e00-\u9fff]+")


class LanguageError(Exception):
    """A page or README exists in one language only, or the learning path misses a case."""


def localized(page: str, lang: str) -> str:
    """`index.md` in `lang`: itself in English, `index.zh.md` in Chinese."""
    return page if lang == wording.DEFAULT else page[: -len(".md")] + f".{lang}.md"


def base_page(page: str) -> str:
    """The English name of a page of any language: `index.zh.md` → `index.md`."""
    for lang in LANGUAGES:
        if lang != wording.DEFAULT and page.endswith(f".{lang}.md"):
            return page[: -len(f".{lang}.md")] + ".md"
    return page


def check_pairs(docs_dir: Path, cases: list[Case]) -> None:
    pages = {p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md")}
    missing = []
    for page in sorted(pages):
        for lang in LANGUAGES:
            other = localized(base_page(page), lang)
            if other not in pages:
                missing.append(f"{docs_dir / other} ({LANGUAGE_NAMES[lang]}, beside {page})")
    for case in cases:
        for lang, name in README_NAMES.items():
            if not (case.path / name).is_file():
                missing.append(f"{case.path / name} ({LANGUAGE_NAMES[lang]})")
    if missing:
        raise LanguageError(
            "every page must exist in English and in 简体中文; missing: " + "; ".join(sorted(set(missing)))
        )


def check_lessons(cases: list[Case]) -> None:
    """Each case is in exactly one lesson of the learning path, and each lesson's case exists."""
    listed = [name for _, _, names in LESSONS for name in names]
    known = {case.name for case in cases}
    problems = [f"{name} is in no lesson" for name in sorted(known - set(listed))]
    problems += [f"{name} is in a lesson but is no case" for name in sorted(set(listed) - known)]
    problems += [
        f"{name} is in more than one lesson" for name in sorted({n for n in listed if listed.count(n) > 1})
    ]
    if problems:
        raise LanguageError("the learning path (harness/site/wording.py LESSONS): " + "; ".join(problems))


def title(case: Case, lang: str) -> str:
    """The case's title in `lang`: its README's first heading, e.g. "03 · A lambda as `collate_fn`"."""
    first = readme(case, lang).read_text(encoding="utf-8").partition("\n")[0]
    return first.lstrip("#").strip()


def learning_path(cases: list[Case]) -> str:
    """The lessons in order, each with its introduction and its cases, in the current language."""
    lang = wording.current()
    by_name = {case.name: case for case in cases}
    parts = []
    for heading, intro, names in LESSONS:
        links = "\n".join(
            f"{n}. [{title(by_name[name], lang)}]({case_page_path(by_name[name])})"
            for n, name in enumerate(names, 1)
        )
        parts.append(f"### {t(heading)}\n\n{t(intro)}\n\n{links}\n")
    return "\n".join(parts)


def nav(cases: list[Case], docs_dir: Path) -> list:
    """Start here, the lessons with their cases, the manual, then the reference pages (in English:
    the i18n plugin finds each page's translation, and rename_sections translates the section titles)."""
    english = sorted(
        p.relative_to(docs_dir).as_posix() for p in docs_dir.glob("*.md") if base_page(p.name) == p.name
    )
    start = [page for page in START_PAGES if page in english]
    manual = [page for page in MANUAL_PAGES if page in english]
    reference = [page for page in REFERENCE_PAGES if page in english]
    reference += [page for page in english if page not in start + manual + reference]
    by_name = {case.name: case for case in cases}
    lessons = [{heading: [case_page_path(by_name[name]) for name in names]} for heading, _, names in LESSONS]
    first, middle, last = SECTIONS
    return [{first: start}, *lessons, {middle: manual}, {last: reference}]


def rename_sections(items: list, lang: str) -> None:
    """The navigation's sections (named in English by `nav`) in `lang`."""
    with wording.language(lang):
        for item in items:
            if item.is_section:
                item.title = t(item.title)
                rename_sections(item.children, lang)


def glossary_terms(docs_dir: Path) -> list[str]:
    """The Chinese terms of the glossary's tables (the second column), for the search segmenter."""
    path = docs_dir / GLOSSARY
    if not path.is_file():
        return []
    terms = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 1:
            terms += HAN.findall(cells[1])
    return sorted({term for term in terms if len(term) > 1})


def add_search_terms(docs_dir: Path) -> None:
    """Teach jieba (which the search plugin uses to cut Chinese text into words) the glossary's
    terms, so that "写时复制" is one word in the index and a search for it finds it whole."""
    try:
        import jieba
    except ImportError:  # the search still works; Chinese is cut by characters only
        return
    for term in glossary_terms(docs_dir):
        jieba.add_word(term)
