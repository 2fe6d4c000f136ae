"""The site's MkDocs hooks (mkdocs.yml `hooks:`): MkDocs loads this file by its path, outside any
package, so it takes them from the harness's module, harness/site/hook.py, which imports the rest
of the harness relatively (as the installed `dataloader_pitfalls` package does)."""

from harness.site.hook import *  # noqa: F403  (the on_* events MkDocs looks for)
