"""An IterableDataset that streams the lines of a log, with two workers and no sharding.

pitfalls: 10
risks:
"""

import os
import tempfile

from torch.utils.data import DataLoader, IterableDataset


class LogLines(IterableDataset):
    def __init__(self, path):
        self.path = path

    def __iter__(self):
        with open(self.path) as lines:
            for line in lines:
                yield len(line)


if __name__ == "__main__":
    path = os.path.join(tempfile.gettempdir(), "train.log")
    with open(path, "w") as log:
        log.writelines(f"step {n} loss {1 / (n + 1):.4f}\n" for n in range(300))
    total = sum(int(batch.sum()) for batch in DataLoader(LogLines(path), batch_size=32, num_workers=2))
    print("characters", total)
