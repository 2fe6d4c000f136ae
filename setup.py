"""What pyproject.toml cannot state by itself: the repository's address, read from the one place
where the publisher sets it, `repo_url` in mkdocs.yml (the site's header and its "get the code"
commands read it there too). Unset, the package names no address: none is invented."""

from __future__ import annotations

import re
from pathlib import Path

REPO_URL = re.compile(r"""^repo_url:[ \t]*["']?(?P<url>[^"'\s#]+)""", re.M)


MKDOCS_YML = Path(__file__).with_name("mkdocs.yml")


def project_urls(mkdocs_yml: Path = MKDOCS_YML) -> dict[str, str]:
    found = REPO_URL.search(mkdocs_yml.read_text(encoding="utf-8")) if mkdocs_yml.is_file() else None
    return {"Repository": found["url"]} if found else {}


if __name__ == "__main__":
    from setuptools import setup

    setup(project_urls=project_urls())
