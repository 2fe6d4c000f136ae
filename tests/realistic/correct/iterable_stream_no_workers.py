"""An IterableDataset over a stream, read in the main process (num_workers=0): no sharding is
needed when there is one copy.

pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, IterableDataset


class Ticks(IterableDataset):
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        for tick in range(self.count):
            yield torch.tensor([tick, tick * 0.5])


def main():
    seen = sum(len(batch) for batch in DataLoader(Ticks(300), batch_size=25, num_workers=0))
    assert seen == 300


if __name__ == "__main__":
    main()
