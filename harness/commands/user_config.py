"""The user's settings for `lint` and `check`: a `[tool.dataloader-pitfalls]` table in the nearest
pyproject.toml above the working directory (as ruff finds `[tool.ruff]`), e.g.

    [tool.dataloader-pitfalls]
    select = ["DLP"]          # rule codes or prefixes; all when absent
    ignore = ["DLP011"]
    site-url = "https://example.org/dataloader-pitfalls"
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .arguments import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOOL = "dataloader-pitfalls"
KEYS = ("select", "ignore", "site-url")


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    site_url: str = ""
    path: Path | None = None  # the pyproject.toml it was read from


def find(start: Path) -> tuple[Path, dict] | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.dataloader-pitfalls] table,
    and that table."""
    for folder in [start.resolve(), *start.resolve().parents]:
        candidate = folder / "pyproject.toml"
        table = _read(candidate).get("tool", {}).get(TOOL) if candidate.is_file() else None
        if table is not None:
            return candidate, table
    return None


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read it as TOML: {exc}") from None


def load(path: Path | None = None, start: Path | None = None) -> Config:
    """The settings in `path`, or in the nearest pyproject.toml above `start` (default: the working
    directory); defaults where there is none. A bad setting is a UsageError naming the file."""
    found = (path, _read(path).get("tool", {}).get(TOOL, {})) if path else find(start or Path.cwd())
    if found is None:
        return Config()
    path, table = found
    where = f"{path} [tool.{TOOL}]"
    for key in table:
        if key not in KEYS:
            raise UsageError(f"{where}: unknown key '{key}' (known: {', '.join(KEYS)})")
    codes = {key: _codes(table.get(key, []), f"{where} '{key}'") for key in ("select", "ignore")}
    site_url = table.get("site-url", "")
    if not isinstance(site_url, str):
        raise UsageError(f"{where} 'site-url': must be a string, not {site_url!r}")
    return Config(select=codes["select"], ignore=codes["ignore"], site_url=site_url, path=path)


def _codes(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        raise UsageError(f"{where}: must be a list of rule codes, not {value!r}")
    return tuple(value)
