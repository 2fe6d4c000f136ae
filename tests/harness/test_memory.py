"""Memory sampling and the leak verdict: measured worker growth against the case's threshold."""

from __future__ import annotations

import pytest

from harness import verdict
from harness.run.settings import RunSettings

pytestmark = pytest.mark.linux


@pytest.mark.slow
def test_memory_limit_stops_the_run_and_is_recorded(tmp_path):
    hog = tmp_path / "hog.py"
    hog.write_text(
        "import time\n"
        "blocks = []\n"
        "while True:\n"
        "    blocks.append(bytearray(50 * 1024 * 1024))\n"
        "    time.sleep(0.05)\n"
    )
    result = verdict.reach(
        hog, "linux", RunSettings(timeout_s=60, memory_limit_mb=400), case="hog", variant="probe"
    )
    assert result.outcome == "leak"
    assert "over its limit of 400 MB; stopped by the harness" in result.signature
    assert result.duration_s < 30
