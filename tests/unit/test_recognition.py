"""Each case is recognised by its mechanism, not by its own script's words: fed what a run of
another library's code shows for the same mechanism (its exception, its stacks, its measurements),
`check`'s diagnosis names the case as a pitfall (case 08, which no run can show, as lint's risk)."""

from __future__ import annotations

import pytest

from harness.cases import discover
from harness.diagnose import PITFALL, RISK, diagnose
from harness.lint import lint_source
from harness.recognition import held_object
from harness.results import RunResult

CASES = {case.name[:2]: case for case in discover()}
PROFILES = (("linux", "fork"), ("linux-3.14", "forkserver"), ("windows-emulated", "spawn"))


def runs(by_method: dict[str, dict], default: dict | None = None) -> list[RunResult]:
    """A run per profile: the fields given for its start method, else `default` (an ok run)."""
    made = []
    for profile, method in PROFILES:
        fields = by_method.get(method, default or {"outcome": "ok"})
        made.append(
            RunResult(case="train.py", variant="check", profile=profile, start_method=method, **fields)
        )
    return made


def crash(signature: str, output: str = "") -> dict:
    return {"outcome": "crash", "signature": signature, "output_tail": output or signature}


def hang(stacks: str = "", native: str = "") -> dict:
    """A hang as the harness records one: the main process (100) waiting for a batch, and a worker
    (101) whose innermost Python frame is `stacks`, with `native` (py-spy's innermost frames of its
    main thread, one a line) below it where native stacks were taken."""
    waiting = '  File "torch/utils/data/dataloader.py", line 1291 in _try_get_data'
    native_main = f'Process 101: python train.py\n\nThread 101 (idle): "MainThread"\n    {native}\n'
    current = "Current thread 0x1 (most recent call first):"
    return {
        "outcome": "hang",
        "signature": "hang",
        "stacks": {
            "100": f"# pid 100, parent 1: python train.py\n{current}\n{waiting}\n",
            "101": f"# pid 101, parent 100: python train.py\n{current}\n{stacks}\n",
        },
        "native_stacks": {"101": native_main + "    __getitem__ (train.py:9)\n"} if native else {},
    }


SPAWNED = ("forkserver", "spawn")

# 01: concurrent.futures at a script's top level; the child's RuntimeError is in the output, the
# parent's own error is a BrokenProcessPool.
UNGUARDED_POOL = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 120, in spawn_main\n'
    "RuntimeError: \n"
    "        An attempt has been made to start a new process before the\n"
    "        current process has finished its bootstrapping phase.\n\n"
    "Traceback (most recent call last):\n"
    '  File "/work/score.py", line 12, in <module>\n'
    "concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly\n"
)
BUS_ERROR = (
    "ERROR: Unexpected bus error encountered in worker. "
    "This might be caused by insufficient shared memory (shm).\n"
    "Traceback (most recent call last):\n"
    '  File "/work/train.py", line 30, in <module>\n'
    "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that "
    "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"
)
TEXT_TIMEOUT = """Traceback (most recent call last):
  File "C:\\a\\text\\test\\test_datasets.py", line 88, in test_loader
    for batch in loader:
  File "C:\\site-packages\\torch\\utils\\data\\dataloader.py", line 1449, in _get_data
    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
RuntimeError: DataLoader timed out after 5 seconds
"""
ROLLOUT_RESET = """Traceback (most recent call last):
  File "/home/u/rl/learner.py", line 57, in learn
    rollout = queue.get()
  File "/usr/lib/python3.10/multiprocessing/queues.py", line 122, in get
    return _ForkingPickler.loads(res)
  File "/usr/lib/python3/dist-packages/torch/multiprocessing/reductions.py", line 541, in rebuild_storage_fd
    fd = df.detach()
  File "/usr/lib/python3.10/multiprocessing/connection.py", line 513, in Client
    answer_challenge(c, authkey)
ConnectionResetError: [Errno 104] Connection reset by peer
"""
TOKENIZER_IN_MAIN = """Traceback (most recent call last):
  File "/home/u/nlp/train.py", line 88, in <module>
    main(cfg)
  File "/home/u/nlp/train.py", line 74, in main
    for batch in loader:
NameError: Caught NameError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py", line 349, in _worker_loop
    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]
  File "/usr/lib/python3/dist-packages/torch/utils/data/_utils/fetch.py", line 55, in fetch
    return self.collate_fn(data)
  File "/home/u/nlp/train.py", line 31, in collate
    encoded = tokenizer(texts, padding=True, return_tensors="pt")
NameError: name 'tokenizer' is not defined
"""
POOL_IN_WORKER = """Traceback (most recent call last):
  File "/work/tiles.py", line 19, in __getitem__
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
  File "/usr/lib/python3.11/multiprocessing/process.py", line 118, in start
    assert not _current_process._config.get('daemon'), \\
AssertionError: daemonic processes are not allowed to have children
"""
PSYCOPG = "TypeError: cannot pickle 'psycopg2.extensions.connection' object"
JSON_TORN = "json.decoder.JSONDecodeError: Expecting value: line 1 column 3 (char 2)"


EPOCHS_WITHOUT_PERSISTENT_WORKERS = """
from torch.utils.data import DataLoader
def main(ds):
    loader = DataLoader(ds, num_workers=4)
    for epoch in range(9):
        for batch in loader:
            pass
"""
STAGE_SET_ON_DATASET = """
from torch.utils.data import DataLoader
def main(ds):
    loader = DataLoader(ds, num_workers=2, persistent_workers=True)
    for stage in range(3):
        ds.stage = stage
        for batch in loader:
            pass
"""
SAMPLER_NEVER_TOLD_THE_EPOCH = """
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
def main(ds):
    dist.init_process_group("gloo")
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, sampler=sampler, num_workers=2)
    for epoch in range(2):
        for batch in loader:
            pass
"""


def memory_growth() -> dict:
    """A forked worker that grows 40 MB over 16 of an epoch's 160 batches (a pandas column of str)."""
    samples = [[0.2 * i, 300.0 + 2.5 * i] for i in range(20)]
    return {
        "outcome": "ok",
        "loader_epochs": [{"batches": 16, "length": 160, "fds": []}],
        "memory": {
            "processes": {"7": {"role": "worker", "metric": "uss", "ready_s": 0.0, "samples": samples}},
            "workers": {"7": {"baseline_mb": 300.0, "peak_mb": 347.5, "growth_mb": 47.5, "metric": "uss"}},
        },
        "dataset_sizes": {"dataset.frame.captions": 400_000},
    }


FEEDS = {
    "01": (
        runs(
            {
                m: crash(
                    "BrokenProcessPool: A process in the process pool was terminated abruptly", UNGUARDED_POOL
                )
                for m in SPAWNED
            }
        ),
        "",
    ),
    "02": (runs({m: crash(PSYCOPG) for m in SPAWNED}), ""),
    "03": (
        runs(
            {
                m: crash("AttributeError: Can't pickle local object 'build_collator.<locals>.collate'")
                for m in SPAWNED
            }
        ),
        "",
    ),
    "04": (
        runs(
            {
                "fork": hang(
                    '  File "albumentations/augmentations/geometric/functional.py", line 80 in resize',
                    "cv::parallel_for_ (libopencv_core.so)",
                )
            }
        ),
        "",
    ),
    "05": (
        runs(
            {
                "fork": crash(
                    "cupy_backends.cuda.api.runtime.CUDARuntimeError: "
                    "cudaErrorInitializationError: initialization error"
                )
            }
        ),
        "",
    ),
    "06": (runs({"fork": memory_growth()}), ""),
    "07": (
        runs(
            {
                m: crash(
                    "AttributeError: Can't get attribute 'Tokenized' on "
                    "<module '__mp_main__' from '/work/nb.py'>"
                )
                for m in SPAWNED
            }
        ),
        "",
    ),
    "08": (
        runs(
            {
                "spawn": {
                    "outcome": "ok",
                    "import_effects": {
                        "processes": 2,
                        "effects": [{"what": "mkdir", "target": "wandb/run", "processes": 2}],
                    },
                }
            }
        ),
        "import os\nfrom torch.utils.data import DataLoader\nos.makedirs('wandb/run', exist_ok=True)\n"
        "def main(ds):\n    return DataLoader(ds, num_workers=2)\n",
    ),
    "09": (
        runs(
            {
                "fork": {
                    "outcome": "ok",
                    "rng": {
                        "5": {"dataset.augment.rng": {"states": {"0": "aa", "1": "aa"}, "used": ["0", "1"]}}
                    },
                }
            }
        ),
        "",
    ),
    "10": (runs({"fork": {"outcome": "ok", "first_batches": {"5": {"0": "beef", "1": "beef"}}}}), ""),
    "11": (
        runs(
            {
                "fork": hang(
                    '  File "tqdm/std.py", line 110 in acquire',
                    "0x7f51394a3f16 (libc.so.6)\n    PyThread_acquire_lock_timed (libpython3.11.so.1.0)",
                )
            }
        ),
        "",
    ),
    "12": (
        runs(
            {
                "fork": crash("OSError: [Errno 24] Too many open files: '/data/img_0412.png'"),
                "forkserver": crash("RuntimeError: received 0 items of ancdata"),
            }
        ),
        "",
    ),
    "13": (
        runs(
            {
                "spawn": {
                    "outcome": "ok",
                    "loader_epochs": [
                        {"duration_s": 6.0, "first_batch_s": 5.0, "last_batch_s": 5.5},
                        {"duration_s": 6.0, "first_batch_s": 5.0, "last_batch_s": 5.5},
                    ],
                }
            }
        ),
        EPOCHS_WITHOUT_PERSISTENT_WORKERS,
    ),
    "14": (
        runs(
            {
                "fork": hang(
                    '  File "sklearn/cluster/_kmeans.py", line 300 in _kmeans_single',
                    "gomp_team_barrier_wait_end (libgomp.so.1)",
                )
            }
        ),
        "",
    ),
    "15": (
        runs(
            {
                m: {
                    "outcome": "wrong",
                    "signature": "AssertionError: stage 2 samples still come from stage 0",
                }
                for m in ("fork", "forkserver", "spawn")
            }
        ),
        STAGE_SET_ON_DATASET,
    ),
    "16": (
        runs(
            {
                "fork": crash(
                    "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.", BUS_ERROR
                )
            }
        ),
        "",
    ),
    "17": (
        runs(
            {
                m: crash(
                    "AssertionError: daemonic processes are not allowed to have children", POOL_IN_WORKER
                )
                for m in ("fork", "forkserver", "spawn")
            }
        ),
        "",
    ),
    "18": (
        runs(
            {
                m: {
                    "outcome": "ok",
                    "logging": {
                        "setup": {"root": [20, 0, True, False]},
                        "records": [
                            {
                                "logger": "PIL.TiffImagePlugin",
                                "level": 30,
                                "delivered": False,
                                "count": 3,
                                "workers": ["0"],
                            }
                        ],
                    },
                }
                for m in SPAWNED
            }
        ),
        "",
    ),
    "19": (
        runs(
            {
                m: {"outcome": "wrong", "signature": "AssertionError: rank 1 repeated epoch 0's order"}
                for m in ("fork", "forkserver", "spawn")
            }
        ),
        SAMPLER_NEVER_TOLD_THE_EPOCH,
    ),
    "20": (  # torchtext's Windows CI, as pytorch/text#1076 reports it
        runs({"spawn": crash("RuntimeError: DataLoader timed out after 5 seconds", TEXT_TIMEOUT)}),
        "",
    ),
    "21": (  # a detector's training under a job's memory limit; the kernel chose a worker
        runs(
            {
                m: crash(
                    "the kernel's OOM killer ended 2 processes of the run (memory limit): RuntimeError: "
                    "DataLoader worker (pid 4242) is killed by signal: Killed."
                )
                for m in SPAWNED
            }
        ),
        "",
    ),
    "22": (  # a rollout process that returns after queueing its tensors, reset mid-handover
        runs(
            {
                m: crash("ConnectionResetError: [Errno 104] Connection reset by peer", ROLLOUT_RESET)
                for m in ("fork", "forkserver")
            }
        ),
        "",
    ),
    "23": (  # a Hugging Face tokenizer made global in main(), used in the collate_fn
        runs(
            {
                m: crash("NameError: Caught NameError in DataLoader worker process 0.", TOKENIZER_IN_MAIN)
                for m in ("forkserver", "spawn")
            }
        ),
        "",
    ),
}


def test_every_case_is_fed_another_library_and_states_its_mechanism():
    assert set(FEEDS) == set(CASES)
    for case in CASES.values():
        assert case.recognition.mechanism.endswith("."), case.name
        assert len(case.recognition.mechanism.split(". ")) == 1, f"{case.name}: one sentence"


@pytest.mark.parametrize("number", sorted(FEEDS))
def test_the_mechanism_is_recognised_in_another_librarys_run(number):
    case = CASES[number]
    results, source = FEEDS[number]
    findings = lint_source(source, "train.py") if source else []
    found = {d.case.name[:2]: d for d in diagnose([case], results, findings)}
    assert number in found and found[number].status == PITFALL, [d.to_json() for d in found.values()]


def test_the_object_that_does_not_pickle_is_named_whatever_the_words():
    assert held_object(PSYCOPG) == "psycopg2.extensions.connection"
    assert held_object("TypeError: cannot pickle '_thread.lock' object") == "_thread.lock"
    assert held_object("TypeError: h5py objects cannot be pickled") == "h5py"
    assert held_object("TypeError: cannot pickle 'TextIOWrapper' instances") == "TextIOWrapper"


def test_a_fork_hang_without_native_stacks_names_no_hang_case_lint_is_a_risk():
    """The realistic set's busy pass: py-spy gave no native stack, the Python stacks show the
    worker in `__getitem__` only. A hang alone shows no mechanism: with set_num_threads(4) found in
    worker_init_fn, 14 is a risk (lint's), not a pitfall, and 11 is not named at all."""
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "def more_threads(worker_id):\n    torch.set_num_threads(4)\n"
        "def main(ds):\n    return DataLoader(ds, num_workers=2, worker_init_fn=more_threads)\n"
    )
    hung = runs({"fork": hang('  File "train.py", line 23 in __getitem__')})
    found = {
        d.case.name[:2]: d.status for d in diagnose(list(CASES.values()), hung, lint_source(source, "t.py"))
    }
    assert found.get("14") == RISK and "11" not in found and "04" not in found, found
    assert not {d.case.name[:2] for d in diagnose(list(CASES.values()), hung, [])} & {"04", "11", "14"}


def test_a_lock_wait_is_case_11_a_librarys_own_wait_is_not():
    """Native waits entered from the interpreter (libc, libpython: a lock) are 11's; entered from
    OpenCV's or OpenMP's library, not (04 and 14 explain them)."""
    lock = runs({"fork": hang('  File "train.py", line 23 in record', "0x7f5fa3da172e (libc.so.6)")})
    assert {d.case.name[:2] for d in diagnose(list(CASES.values()), lock, [])} == {"11"}
    gomp = "0x7fddb001e073 (libgomp.so.1)\n    at::TensorIteratorBase::for_each (libtorch_cpu.so)"
    openmp = runs({"fork": hang('  File "train.py", line 16 in __getitem__', gomp)})
    assert {d.case.name[:2] for d in diagnose(list(CASES.values()), openmp, [])} == {"14"}


def test_a_torn_read_under_fork_is_case_02_only_where_lint_found_the_handle():
    from harness.diagnose import runtime_evidence

    torn = runs({"fork": crash(JSON_TORN)})
    assert runtime_evidence(CASES["02"], torn, linted=True)[0]
    assert not runtime_evidence(CASES["02"], torn, linted=False)[0], "a JSON error alone is no open handle"


@pytest.mark.parametrize(
    "torn",
    [
        "zipfile.BadZipFile: Bad CRC-32 for file 'sample_0014.npy'",
        "zlib.error: Error -3 while decompressing data: invalid distance too far back",
        "zipfile.BadZipFile: Bad magic number for file header",
    ],
)
def test_a_zip_archive_read_through_the_parents_file_object_is_a_torn_read(torn):
    """Issue 42: forked workers read members of a zip archive the Dataset opened in __init__,
    one offset for all; the bad CRC or zlib error is case 02 where lint found the archive."""
    from harness.diagnose import runtime_evidence

    assert runtime_evidence(CASES["02"], runs({"fork": crash(torn)}), linted=True)[0]


def test_shared_memory_exhaustion_is_case_16_under_any_profile_and_disk_full_is_not():
    from harness.diagnose import runtime_evidence

    spawned = runs(
        {
            "spawn": crash(
                "RuntimeError: unable to write to file </torch_88_1_0>: No space left on device (28)"
            )
        }
    )
    assert runtime_evidence(CASES["16"], spawned)[0]
    disk_full = runs({"fork": crash("OSError: [Errno 28] No space left on device: 'checkpoints/last.pt'")})
    assert not runtime_evidence(CASES["16"], disk_full)[0], "a full disk is not /dev/shm"
