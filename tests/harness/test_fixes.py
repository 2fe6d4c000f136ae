"""The helpers in fixes/, in real DataLoader workers."""

from __future__ import annotations

import functools
import importlib.util
import logging
import multiprocessing

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

from fixes.sharding import worker_shard
from fixes.worker_logging import log_to_queue, records_from_workers
from fixes.worker_random import numpy_generator, python_random, worker_seed
from harness.cases import CASES_DIR

pytestmark = pytest.mark.slow  # each test starts DataLoader workers


class Draws(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return float(numpy_generator().random()), python_random().random(), worker_seed()


class Stream(IterableDataset):
    def __iter__(self):
        return worker_shard(range(50))


def draws(seed: int, workers: int) -> list:
    loader = DataLoader(
        Draws(), batch_size=4, num_workers=workers, generator=torch.Generator().manual_seed(seed)
    )
    return [tuple(column.tolist() for column in batch) for batch in loader]


def test_worker_generators_differ_between_workers_and_repeat_with_the_seed():
    first = draws(seed=7, workers=2)
    by_seed = {seeds[0]: values[0] for values, _, seeds in first}
    assert len(set(by_seed)) == 2, "each worker has its own seed"
    assert len(set(by_seed.values())) == 2, "so its own numpy draws"
    assert draws(seed=7, workers=2) == first, "the same DataLoader seed gives the same draws"
    assert draws(seed=8, workers=2) != first


def test_outside_a_worker_the_process_seed_is_used():
    torch.manual_seed(123)
    assert worker_seed() == 123
    assert numpy_generator().random() == np.random.default_rng(123).random()


def test_sharding_gives_every_item_exactly_once():
    for workers in (0, 1, 3):
        items = [int(x) for batch in DataLoader(Stream(), batch_size=5, num_workers=workers) for x in batch]
        assert sorted(items) == list(range(50)), workers


def load_fixed(case: str):
    """A case's fixed.py as a module (its main() does not run on import)."""
    path = CASES_DIR / case / "fixed.py"
    spec = importlib.util.spec_from_file_location(f"fixed_{case[:2]}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_case_09s_inline_fix_draws_what_the_helper_draws():
    fixed = load_fixed("09_duplicated_randomness")

    class WithHelper(Dataset):
        def __init__(self):
            self.rng = None

        def __len__(self):
            return 64

        def __getitem__(self, index):
            if self.rng is None:
                self.rng = numpy_generator()
            return int(self.rng.integers(0, 1_000_000))

    def offsets(dataset) -> list[int]:
        loader = DataLoader(dataset, batch_size=8, num_workers=2, generator=torch.Generator().manual_seed(0))
        return [offset for batch in loader for offset in batch.tolist()]

    inline = offsets(fixed.RandomCrops())
    assert inline == offsets(WithHelper())
    assert len(set(inline)) == 64, "and the workers drew different numbers"


def test_case_10s_inline_fix_shards_as_the_helper_does():
    fixed = load_fixed("10_iterable_dataset_duplicates")

    class WithHelper(IterableDataset):
        def __iter__(self):
            return worker_shard(range(100))

    def items(dataset, workers: int) -> list[int]:
        return [int(x) for batch in DataLoader(dataset, batch_size=10, num_workers=workers) for x in batch]

    for workers in (0, 2, 3):
        inline, helped = items(fixed.Records(100), workers), items(WithHelper(), workers)
        assert inline == helped and sorted(inline) == list(range(100)), workers


class Warns(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        logging.getLogger("tests.fixes").warning("sample %d read in a worker", index)
        return index


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_records_reach_the_main_process_handlers(method, tmp_path):
    log = tmp_path / "train.log"
    handler = logging.FileHandler(log)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        queue = multiprocessing.get_context(method).Queue()
        with records_from_workers(queue):
            loader = DataLoader(
                Warns(),
                batch_size=2,
                num_workers=2,
                multiprocessing_context=method,
                worker_init_fn=functools.partial(log_to_queue, queue),
            )
            assert sorted(i for batch in loader for i in batch.tolist()) == [0, 1, 2, 3]
    finally:
        root.removeHandler(handler)
        handler.close()
    lines = log.read_text().splitlines()
    assert sorted(lines) == [f"sample {i} read in a worker" for i in range(4)]
