"""Sharding an IterableDataset's stream across DataLoader workers.

Each worker gets its own copy of an IterableDataset and iterates it from the start: without
sharding, every item arrives once per worker. Give each worker every n-th item instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TypeVar

from torch.utils.data import get_worker_info

Item = TypeVar("Item")


def worker_shard(items: Iterable[Item]) -> Iterator[Item]:
    """The items that belong to this worker (every `num_workers`-th, from its id); all of them
    in the main process. Use it in `IterableDataset.__iter__`."""
    info = get_worker_info()
    if info is None:
        return iter(items)
    return itertools.islice(items, info.id, None, info.num_workers)
