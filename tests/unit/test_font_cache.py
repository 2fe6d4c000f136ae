"""The site's plots need a CJK font (harness/site/plots.py): a matplotlib font cache made before
the font was installed must not hide it (issue 50). matplotlib caches its list of fonts at its
first use; here that cache is made, the font taken out of it (as it was before `apt-get install
fonts-wqy-microhei`), and the build's font step must still find the font, rewriting the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CJK_FONT = "WenQuanYi Micro Hei"
FINDS = "from matplotlib import font_manager as f; f.findfont({font!r}, fallback_to_default=False)"


def _python(code: str, cache) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLCONFIGDIR=str(cache))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )


def _cache_file(cache):
    return next(cache.glob("fontlist-*.json"))


def _names(cache) -> set[str]:
    return {font["name"] for font in json.loads(_cache_file(cache).read_text())["ttflist"]}


def _cache_without_the_font(cache) -> None:
    """The cache as a first use of matplotlib left it before the font was installed."""
    assert _python("import matplotlib.font_manager", cache).returncode == 0
    if CJK_FONT not in _names(cache):
        pytest.skip(f"{CJK_FONT} is not installed here (apt-get install fonts-wqy-microhei)")
    data = json.loads(_cache_file(cache).read_text())
    data["ttflist"] = [font for font in data["ttflist"] if font["name"] != CJK_FONT]
    _cache_file(cache).write_text(json.dumps(data))


def test_a_font_cache_older_than_the_font_is_read_afresh_and_the_plots_find_the_font(tmp_path):
    _cache_without_the_font(tmp_path)
    stale = _python(FINDS.format(font=CJK_FONT), tmp_path)
    assert stale.returncode != 0 and "ValueError" in stale.stderr, "the stale cache hides the font"
    built = _python("from harness.site import plots; plots.use_fonts(); print('fonts ok')", tmp_path)
    assert built.returncode == 0 and "fonts ok" in built.stdout, built.stderr
    assert CJK_FONT in _names(tmp_path), "the cache was rewritten with the font"
    assert _python(FINDS.format(font=CJK_FONT), tmp_path).returncode == 0, "and later uses find it at once"


def test_a_font_really_missing_names_the_package_and_says_the_list_was_read_afresh(tmp_path):
    code = (
        "from harness.site import plots\nplots.CJK_FONT = 'No Such Font Anywhere'\n"
        "try:\n    plots.use_fonts()\nexcept plots.FontMissing as exc:\n    print(exc)\n"
    )
    said = _python(code, tmp_path).stdout
    assert "install Debian's fonts-wqy-microhei" in said and "read afresh from the system" in said, said
