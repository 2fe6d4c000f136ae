"""English sentences on a page in another language: what a reader of that page would have to read in
English although it is neither code, a command, an error text, a name, nor a quotation.

A page's text is read block by block (a paragraph, a list item, a cell, a heading) without: code
(`code`, `pre`, `kbd`, `samp`), outcome badges, the site's header, footer and navigation, elements
marked `lang="en"` (a name kept in English on purpose), links to other sites (the title of a cited
page) and quotations ("…" and “…”: a source's own words). What remains is English where it holds a
run of four or more English words.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

SKIPPED_TAGS = {"script", "style", "code", "pre", "kbd", "samp", "svg", "head"}
SKIPPED_CLASSES = {"dlp-outcome", "highlight", "md-header", "md-footer", "md-nav", "md-sidebar", "headerlink"}
BLOCKS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "summary", "figcaption", "dt", "dd"}
EMPTY = {"br", "img", "hr", "input", "meta", "link", "wbr", "source"}
ENGLISH = re.compile(r"[A-Za-z][A-Za-z'’]*(?:[ ,:()/-]+[A-Za-z][A-Za-z'’]*){3,}")
QUOTED = re.compile(r'"[^"]*"|“[^”]*”')


class _Blocks(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipping: list[bool] = []
        self.text: list[str] = []
        self.blocks: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in EMPTY:
            return
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        external = tag == "a" and (attrs.get("href") or "").startswith(("http://", "https://"))
        english = (attrs.get("lang") or "").startswith("en")
        skip = tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES) or external or english
        self.skipping.append(skip)
        if tag in BLOCKS:
            self._flush()

    def handle_endtag(self, tag):
        if tag in EMPTY:
            return
        if self.skipping:
            self.skipping.pop()
        if tag in BLOCKS:
            self._flush()

    def handle_data(self, data):
        self.text.append(" ⟨…⟩ " if any(self.skipping) else data)

    def _flush(self):
        if self.text:
            self.blocks.append("".join(self.text))
            self.text = []


def english_sentences(page_html: str) -> list[str]:
    """The runs of English words on the page, outside what the module's docstring leaves out."""
    parser = _Blocks()
    parser.feed(page_html)
    parser._flush()
    found = []
    for block in parser.blocks:
        found += ENGLISH.findall(QUOTED.sub(" ", block))
    return found
