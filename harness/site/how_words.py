"""How a column was made, as its results record it (`RunResult.emulation`), in the page's language.

The harness writes that text in English when it runs (harness/profiles.py `Profile.emulation`, and
harness/run/launch/wine_env.py `describe` under Wine); results files keep it as it was written. The
site reads it back part by part (`; ` between parts) against the shapes those functions write, and
says each part through the catalog. A part of another shape (a results file from a newer harness)
is shown as recorded, as code: the page never presents English prose as a translation.
"""

from __future__ import annotations

import re

from ..run import launch
from .wording import N_, t

# What ran another system's binaries, as its launcher records it: "{start} {version}: {what}".
FOREIGN = re.compile(rf"^{re.escape(launch.DESCRIBED_AS[launch.WINE])} (?P<version>[^:]+): (?P<what>.+)$")
# Each part of an emulation: its shape and the message that says it.
PARTS = [
    (re.compile(r"^(?P<method>\w+) on (?P<system>\w+), Python (?P<python>[\d.]+)$"),
     N_("{method} on {system}, Python {python}")),
    (re.compile(r"^__main__ preloaded in the forkserver, with its argv, as CPython (?P<since>\S+) does$"),
     N_("`__main__` preloaded in the forkserver, with its argv, as CPython {since} does")),
    (re.compile(r"^torch's (?P<strategy>\w+) sharing strategy in every process$"),
     N_("torch's `{strategy}` sharing strategy in every process")),
    (re.compile(r"^fork, forkserver, os\.fork, resource and fcntl hidden$"),
     N_("fork, forkserver, `os.fork`, `resource` and `fcntl` hidden")),
    (re.compile(r"^no SIGCHLD handler$"), N_("no `SIGCHLD` handler")),
    (re.compile(r"^no inherited descriptors$"), N_("no inherited descriptors")),
    (re.compile(r"^with at most (?P<count>\d+) open files a process$"),
     N_("at most {count} open files a process (`ulimit -n`)")),
]  # fmt: skip


def described(recorded: str) -> str:
    """`recorded` (a column's emulation, or what ran under Wine) in the current language, as
    Markdown; "" stays ""."""
    if not recorded:
        return ""
    foreign = FOREIGN.match(recorded)
    if foreign:
        return t("Windows binaries under Wine {version}: {what}", version=foreign["version"],
                 what=f"`{foreign['what']}`")  # fmt: skip
    return t("; ").join(_part(part) for part in recorded.split("; "))


def _part(text: str) -> str:
    for shape, message in PARTS:
        found = shape.match(text)
        if found:
            return t(message, **found.groupdict())
    return f"`{text}`"


def plain(recorded: str) -> str:
    """The same words as plain text (a tooltip, an admonition's title): without the backticks."""
    return described(recorded).replace("`", "")
