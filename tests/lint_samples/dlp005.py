"""DLP005: an IterableDataset whose __iter__ never consults get_worker_info()."""

import torch
from torch.utils.data import IterableDataset


class Stream(IterableDataset):
    def __iter__(self):  # DLP005
        return iter(range(10))


class Sharded(IterableDataset):
    def __iter__(self):  # near miss: each worker takes its share
        info = torch.utils.data.get_worker_info()
        return iter(range(info.id, 10, info.num_workers))


class ShardedByHelper(IterableDataset):
    def __iter__(self):  # near miss: a sharding helper
        return worker_shard(range(10))


def worker_shard(items):
    return iter(items)
