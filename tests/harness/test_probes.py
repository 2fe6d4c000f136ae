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


AUGMENTED = """
import random
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

HOW = sys.argv[1]


class Samples(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if HOW == "global":
            return index + random.random()
        if HOW == "fresh-generator":
            return index + float(np.random.default_rng().random())
        return index


if __name__ == "__main__":
    for batch in DataLoader(Samples(), batch_size=2, num_workers=2):
        pass
"""


@pytest.mark.slow
@pytest.mark.parametrize(("how", "compared"), [("plain", 8), ("global", 0), ("fresh-generator", 0)])
def test_samples_are_recorded_by_index_unless_drawn_at_random(tmp_path, how, compared):
    """The samples probe (harness/boot/dlp_samples.py) in a real worker: each sample's digest by
    index, and no digest where a global generator drew or an unseeded one was made afresh."""
    script = tmp_path / "augmented.py"
    script.write_text(AUGMENTED)
    settings = RunSettings(timeout_s=60, args=(how,))
    result = verdict.reach(script, "linux", settings, case="c", variant="v")
    assert result.outcome == "ok", result.output_tail
    fetched = [key for key in result.samples.get("fetched", {}) if ":b" not in key]
    assert len(fetched) == compared, result.samples
    assert result.samples["random"] == 8 - compared
