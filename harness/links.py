"""Where a user reads about a case: its page on the project's site when a site URL is set
(`[tool.dataloader-pitfalls] site-url`, or DLP_SITE_URL), else its folder in the repository."""

from __future__ import annotations

import os

SITE_VARIABLE = "DLP_SITE_URL"
_configured = {"site_url": ""}


def configure(site_url: str) -> None:
    """The site URL from the user's configuration; DLP_SITE_URL still wins."""
    _configured["site_url"] = site_url


def site_url() -> str:
    return (os.environ.get(SITE_VARIABLE) or _configured["site_url"]).rstrip("/")


def case_link(name: str) -> str:
    """`https://…/cases/NN_slug/` with a site URL; `cases/NN_slug` (the repository path) without,
    as a finding ends: `(see cases/NN_slug)`."""
    page = case_page(name)
    return page if site_url() else page.rstrip("/")


def case_page(name: str) -> str:
    """`https://…/cases/NN_slug/` with a site URL; `cases/NN_slug/` (its folder) without."""
    url = site_url()
    return f"{url}/cases/{name}/" if url else f"cases/{name}/"
