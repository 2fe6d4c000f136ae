"""An IterableDataset that gives each worker its own share of the records (every k-th, through
`get_worker_info()`) and shuffles its share through a buffer: the workers' first batches differ
and no record comes twice.

The IterableDataset docstring's example 1 (torch/utils/data/dataset.py, read here: "Example 1:
splitting workload across all workers in :meth:`__iter__`"), split by every k-th record rather
than by ranges, with a shuffle buffer drawing from Python's `random`, which torch seeds per
worker.

pitfalls:
risks:
"""

import random

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class ShuffledShards(IterableDataset):
    def __init__(self, count, buffer_size=8):
        self.count, self.buffer_size = count, buffer_size

    def records(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        for index in range(worker, self.count, workers):
            yield {"id": index, "x": torch.full((4,), float(index))}

    def __iter__(self):
        buffer = []
        for record in self.records():
            buffer.append(record)
            if len(buffer) >= self.buffer_size:
                yield buffer.pop(random.randrange(len(buffer)))
        random.shuffle(buffer)
        yield from buffer


def main():
    loader = DataLoader(ShuffledShards(80), batch_size=16, num_workers=4)
    ids = torch.cat([batch["id"] for batch in loader])
    print(f"{len(ids)} records, {len(set(ids.tolist()))} distinct")


if __name__ == "__main__":
    main()
