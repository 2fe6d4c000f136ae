"""The helpers in fixes/, in real DataLoader workers."""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

from fixes.sharding import worker_shard
from fixes.worker_random import numpy_generator, python_random, worker_seed


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
