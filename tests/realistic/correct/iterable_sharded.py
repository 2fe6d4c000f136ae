"""An IterableDataset that shards its stream by worker.

pitfalls:
risks:
"""

from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Records(IterableDataset):
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        info = get_worker_info()
        start, step = (info.id, info.num_workers) if info else (0, 1)
        yield from range(start, self.count, step)


if __name__ == "__main__":
    seen = [int(x) for batch in DataLoader(Records(200), batch_size=10, num_workers=2) for x in batch]
    print(len(seen), len(set(seen)))
