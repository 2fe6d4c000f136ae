"""An IterableDataset reads records and shuffles them through a buffer, "like webdataset", but
never splits the stream between workers: each of the 4 workers yields every record, in an order of
its own (the buffer draws from Python's `random`, which torch seeds per worker). The script's own
output says so: 20 batches where 5 were expected. The workers' first batches differ, so comparing
them proves nothing; the items they yield overlap.

What the IterableDataset docstring warns of (torch/utils/data/dataset.py, read here: "each worker
process will have a different copy of the dataset object, so it is often desired to configure
each copy independently to avoid having duplicate data returned from the workers"), behind a
shuffle buffer of the kind streaming libraries put in front of a stream (written here, not copied
from one).

pitfalls: 10
risks:
"""

import random

import torch
from torch.utils.data import DataLoader, IterableDataset


class ShuffledRecords(IterableDataset):
    def __init__(self, count, buffer_size=8):
        self.count, self.buffer_size = count, buffer_size

    def records(self):
        for index in range(self.count):
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
    loader = DataLoader(ShuffledRecords(80), batch_size=16, num_workers=4)
    batches = list(loader)
    ids = torch.cat([batch["id"] for batch in batches])
    print(f"{len(batches)} batches (5 expected), {len(ids)} records, {len(set(ids.tolist()))} distinct")


if __name__ == "__main__":
    main()
