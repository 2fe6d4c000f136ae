"""One search index per language: a search from a Chinese page finds Chinese pages only.

The i18n plugin merges every language's entries into the one index that MkDocs' search plugin
writes at the site's root, and every page's search reads it, so each hit came twice and English
pages came first from /zh/. After the build, `split` writes each language's entries to its own
folder (`zh/search/search_index.json`, their locations made relative to it) and leaves the default
language's at the root; `point_at_own` makes a page's search read its language's (Material fetches
`search/search_index.json` under the `base` of the page's `__config`, and resolves each hit against
it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

INDEX = Path("search") / "search_index.json"
BASE = re.compile(r'(<script id="__config" type="application/json">\{.*?"base": ")([^"]*)(")')


def split(site_dir: Path, languages: tuple[str, ...], default: str) -> dict[str, int]:
    """Rewrite the merged index as one per language; how many entries each got."""
    merged = site_dir / INDEX
    if not merged.is_file():
        return {}
    data = json.loads(merged.read_text(encoding="utf-8"))
    counts = {}
    for lang in languages:
        prefix = "" if lang == default else f"{lang}/"
        own = [
            _relative(entry, prefix) for entry in data["docs"] if _language(entry, languages, default) == lang
        ]
        target = site_dir / prefix / INDEX
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**data, "docs": own}, ensure_ascii=False), encoding="utf-8")
        counts[lang] = len(own)
    return counts


def _language(entry: dict, languages: tuple[str, ...], default: str) -> str:
    first = entry["location"].split("/", 1)[0]
    return first if first in languages and first != default else default


def _relative(entry: dict, prefix: str) -> dict:
    return {**entry, "location": entry["location"].removeprefix(prefix)}


def point_at_own(output: str, lang: str, default: str) -> str:
    """A page of `lang` with its search (the `base` of its configuration) at its language's root."""
    if lang == default:
        return output
    return BASE.sub(lambda m: f"{m[1]}{m[2].rstrip('/')}/{lang}/{m[3]}", output, count=1)
