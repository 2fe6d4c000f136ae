"""The workers' logging probe (harness/boot/dlp_logging.py) records what became of each record
and changes nothing of the records themselves: the caller, line and function they name are the
script's, not the probe's."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

LOGS = """
import logging, dlp_logging
events = []
dlp_logging.watch_worker(lambda *fields: events.append(fields), 0)
logging.basicConfig(format="%(funcName)s:%(lineno)d %(message)s", level=logging.INFO)

def read_item():
    logging.getLogger("data").info("hello")
    logging.getLogger("data").debug("dropped for its level")
    try:
        1 / 0
    except ZeroDivisionError:
        logging.getLogger("data").exception("boom")
    logging.getLogger("data").log(logging.WARNING, "as a level", stacklevel=1)

read_item()
print(events)
"""


def test_records_name_the_scripts_line_and_the_probe_notes_each_one(tmp_path):
    script = tmp_path / "logs.py"
    script.write_text(LOGS)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "harness" / "boot")}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("read_item:")]
    assert [line.split(" ", 1)[1] for line in lines] == ["hello", "boom", "as a level"], done.stderr
    assert lines[0].startswith("read_item:8 "), "the line of the script's call"
    events = done.stdout.strip()
    assert "('log', 0, 'data', 20, 1)" in events and "('log', 0, 'data', 10, 0)" in events, events
    assert "('log', 0, 'data', 40, 1)" in events and "('log', 0, 'data', 30, 1)" in events, events
