"""The harness and its boot modules keep one contract (harness/boot/dlp_contract.py): a torch-free
script booted under every profile, a hang that comes back with its stacks, and every kind of event
line read back. Quick: a broken boot module or contract fails here, not only in the slow tier."""

from __future__ import annotations

import os
import re

import pytest

from harness.boot import dlp_contract as contract
from harness.profiles import PROFILES
from harness.run import probe_records
from harness.run.runner import run_script
from harness.run.settings import RunSettings

pytestmark = pytest.mark.linux

WHICH = """\
import multiprocessing, os
print("method", multiprocessing.get_start_method(), "pid", os.getpid(), flush=True)
"""

WAITS = """\
import time


def wait_here():
    time.sleep(60)


wait_here()
"""


@pytest.mark.parametrize(
    "name", [name for name, profile in PROFILES.items() if profile.launcher.name != "wine"]
)
def test_every_profile_boots_a_plain_script_and_imposes_its_start_method(tmp_path, name):
    """Every profile this machine's interpreter runs (the Wine runner's own: tests/harness/test_wine.py)."""
    script = tmp_path / "which.py"
    script.write_text(WHICH)
    observed = run_script(script, PROFILES[name], RunSettings(timeout_s=20, idle_s=None))
    assert not observed.boot_failure and observed.returncode == 0, observed.output
    printed = re.search(r"method (\w+) pid (\d+)", observed.output)
    assert printed, observed.output
    assert printed[1] == PROFILES[name].start_method
    assert int(printed[2]) == observed.root_pid, f"{contract.MAIN_PID_FILE} names the script's process"


def test_a_hang_is_stopped_at_its_timeout_with_the_stacks_of_its_process(tmp_path):
    script = tmp_path / "waits.py"
    script.write_text(WAITS)
    observed = run_script(script, PROFILES["linux"], RunSettings(timeout_s=1.5, idle_s=None))
    assert observed.timed_out, observed.output
    stacks = "\n".join(observed.stacks.values())
    assert "wait_here" in stacks and "waits.py" in stacks, stacks


def test_every_event_of_the_contract_is_read_back(tmp_path):
    """One line of each kind, as the boot probes write them: the reader takes each one."""
    values = {
        "epoch": "1",
        "length": "4",
        "bytes": "4096",
        "fd_limit": "1024",
        "loader": "1",
        "n": "1",
        "fds": "12",
        "seed": "7",
        "worker": "0",
        "path": "dataset.items",
        "hash": "ab12",
        "hashes": "ab12,cd34",
        "what": "open-w",
        "dropped": "3",
        "batch_size": "8",
        "target": "train.log",
        "logger": "train",
        "level": "20",
        "handler_level": "0",
        "propagate": "1",
        "delivered": "0",
        "disabled": "0",
        "dataset": "Samples/8",
        "indices": "3,5",
        "digests": "ab12,cd34",
        "batch": "ef56",
        "drew": "0",
    }
    lines = [
        " ".join((kind, *(values[field] for field in fields), "100.5"))
        for kind, fields in contract.EVENT_FIELDS.items()
    ]
    (tmp_path / f"42{contract.EVENTS_SUFFIX}").write_text("\n".join(lines) + "\n")
    recorded = probe_records.read(tmp_path)
    assert [fields[0] for fields in recorded[42]] == list(contract.EVENT_FIELDS)
    assert probe_records.worker_ready(recorded, 100.0) == {42: 0.5}
    assert probe_records.worker_warm(recorded, 100.0) == {42: 0.5}
    assert probe_records.WarmWatch(100.0).poll(tmp_path) == {42: 0.5}
    (epoch,) = probe_records.loader_epochs(recorded, 42, 100.0)
    assert (epoch["length"], epoch["fd_limit"], epoch["batches"], epoch["fds"]) == (4, 1024, 1, [[1, 12]])
    assert epoch["loader"] == 1
    assert probe_records.dataset_sizes(recorded) == {"dataset.items": 4}
    assert probe_records.dataset_bytes(recorded) == {"dataset.items": 4096}
    assert probe_records.first_batches(recorded) == {"7": {"0": "ab12"}}
    assert probe_records.streams(recorded) == {
        "7": {
            "workers": 1,
            "items": 2,
            "distinct": 2,
            "shared": 0,
            "whole": True,
            "dropped": 3,
            "batch_size": 8,
        }
    }
    assert probe_records.rng_fingerprints(recorded)["7"]["dataset.items"]["ends"] == {"0": "ab12"}
    assert probe_records.import_effects(recorded) == {
        "processes": 1,
        "effects": [{"what": "open-w", "target": "train.log", "processes": 1}],
    }
    assert probe_records.logging_records(recorded) == {
        "setup": {"train": [20, 0, True, False]},
        "records": [{"logger": "train", "level": 20, "delivered": False, "count": 1, "workers": ["0"]}],
    }
    fetched = probe_records.samples(recorded)["fetched"]
    assert (fetched["Samples/8:3"], fetched["Samples/8:5"]) == ("ab12", "cd34") and len(fetched) == 3


def test_a_temporary_file_made_and_removed_by_the_import_is_no_side_effect(tmp_path):
    """`tempfile.gettempdir()` at the top level writes a file and removes it to find a folder it
    may write in: nothing lasts. A log emptied by the import lasts, in each process."""
    lines = [
        "import_main 1.0",
        "import_effect open-w tmp/abc123 1.1",
        "import_effect remove tmp/abc123 1.2",
        "import_effect open-w train%20log.txt 1.3",
    ]
    for pid in (41, 42):
        (tmp_path / f"{pid}{contract.EVENTS_SUFFIX}").write_text("\n".join(lines) + "\n")
    assert probe_records.import_effects(probe_records.read(tmp_path)) == {
        "processes": 2,
        "effects": [{"what": "open-w", "target": "train log.txt", "processes": 2}],
    }


def test_equal_items_hash_alike_by_content_whatever_their_storage():
    """The same first batch from two workers (case 10) is told by content: torch's pickle of a
    tensor names its storage's address, so equal tensors never pickled alike."""
    import torch

    from harness.boot import dlp_worker

    one = [{"x": torch.tensor([1.0, 2.0]), "id": 3}, (torch.arange(4).view(2, 2)[:, 1], "a")]
    same = [{"id": 3, "x": torch.tensor([1.0, 2.0])}, (torch.tensor([1, 3]), "a")]
    assert dlp_worker._digest(one) == dlp_worker._digest(same) != "-"
    assert dlp_worker._digest([torch.tensor([1.0, 2.5])]) != dlp_worker._digest([torch.tensor([1.0, 2.0])])
    assert dlp_worker._digest(torch.tensor([1, 2])) != dlp_worker._digest(torch.tensor([1.0, 2.0])), "dtype"


SIDE_EFFECTS = """\
import json, logging, multiprocessing, os, tempfile

logging.basicConfig(filename="appended.log")  # opened to append: changes nothing by itself
SCRATCH = tempfile.gettempdir()  # writes a file and removes it: nothing lasts
os.makedirs("out", exist_ok=True)  # there already when a child imports the script: nothing made
os.makedirs(os.path.join("runs", str(os.getpid())))  # a folder of its own
with open("out/config.json", "w") as config:
    json.dump({"lr": 0.1}, config)


def work():
    pass


if __name__ == "__main__":
    child = multiprocessing.Process(target=work)
    child.start()
    child.join()
"""


@pytest.mark.parametrize(("profile", "processes"), [("linux", 0), ("windows-emulated", 1), ("linux-3.14", 1)])
def test_what_the_top_level_does_when_a_child_imports_the_script_is_recorded(tmp_path, profile, processes):
    """Case 08, from what the runs did: under spawn the child (under forkserver the server)
    imports the script again and its top level makes the folder and empties the file once more;
    under fork nothing imports it again."""
    script = tmp_path / "side_effects.py"
    script.write_text(SIDE_EFFECTS)
    observed = run_script(script, PROFILES[profile], RunSettings(timeout_s=30, idle_s=None))
    assert observed.returncode == 0, observed.output
    if not processes:
        assert observed.import_effects == {}
        return
    assert observed.import_effects["processes"] == processes, observed.output
    effects = [
        (e["what"], e["target"].split(os.sep)[0], e["processes"]) for e in observed.import_effects["effects"]
    ]
    assert effects == [("mkdir", "runs", 1), ("open-w", "out", 1)], observed.import_effects


def test_samples_drawn_at_random_or_varying_within_a_run_are_not_compared(tmp_path):
    """A batch fetched while a generator drew is counted, not kept; an index fetched twice with
    other data (a second epoch) is marked as varied; batches are keyed by their indices."""
    lines = [
        "samples Samples/8 0 0,1 aa,bb b01 0 1.0",
        "samples Samples/8 1 2,3 cc,dd b23 1 2.0",
        "samples Samples/8 0 0,1 aa,ee b01 0 3.0",
    ]
    (tmp_path / f"7{contract.EVENTS_SUFFIX}").write_text("\n".join(lines) + "\n")
    recorded = probe_records.samples(probe_records.read(tmp_path))
    fetched = recorded["fetched"]
    assert fetched["Samples/8:0"] == "aa" and fetched["Samples/8:1"] == probe_records.VARIED
    assert "Samples/8:2" not in fetched and recorded["random"] == 2 and recorded["varied"] == 1
    assert [key for key in fetched if ":b" in key] and len(fetched) == 3
