"""What the boot probes observe from outside a script: the epochs of its DataLoaders, and the
notebook-style stdin mode."""

from __future__ import annotations

import pytest

from harness import verdict
from harness.run.settings import RunSettings

pytestmark = pytest.mark.linux


@pytest.mark.slow
def test_stdin_mode_runs_code_in_a_main_without_a_file(tmp_path):
    script = tmp_path / "cell.py"
    script.write_text(
        "import __main__, sys\nprint('file' if hasattr(__main__, '__file__') else 'no file', sys.argv)\n"
    )
    plain = verdict.reach(script, "windows-emulated", RunSettings(timeout_s=30), case="c", variant="v")
    fed = verdict.reach(script, "windows-emulated", RunSettings(30, via_stdin=True), case="c", variant="v")
    assert plain.output_tail.startswith("file")
    assert fed.outcome == "ok" and fed.output_tail.startswith("no file"), fed.output_tail


@pytest.mark.slow
def test_stdin_mode_makes_the_scripts_folder_importable(tmp_path):
    (tmp_path / "helper_module.py").write_text("VALUE = 42\n")
    script = tmp_path / "cell.py"
    script.write_text("from helper_module import VALUE\nprint(VALUE)\n")
    fed = verdict.reach(script, "linux", RunSettings(30, via_stdin=True), case="c", variant="v")
    assert fed.output_tail.strip() == "42", fed.output_tail
