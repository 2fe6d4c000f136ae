"""An IterableDataset streams the lines of a file with two workers and no `get_worker_info()`
split, in a script with no `if __name__ == "__main__":` guard. Under spawn the workers fail at
their start (case 01) before anything is read; under fork the script runs and every line comes
twice (case 10). Both are pitfalls of this script.

The IterableDataset docstring's own warning (torch/utils/data/dataset.py, read here: "Directly
doing multi-process loading yields duplicate data"), in a notebook-turned-script without a guard.

pitfalls: 01 10
risks:
"""

import os

import torch
from torch.utils.data import DataLoader, IterableDataset

if not os.path.exists("lines.txt"):  # the data, made once
    with open("lines.txt", "w") as lines:
        lines.write("".join(f"{i} {i * i}\n" for i in range(40)))


class Lines(IterableDataset):
    def __init__(self, path):
        self.path = path

    def __iter__(self):
        with open(self.path) as source:
            for line in source:
                yield torch.tensor([float(x) for x in line.split()])


loader = DataLoader(Lines("lines.txt"), batch_size=8, num_workers=2)
rows = torch.cat(list(loader))
print(f"{len(rows)} rows read from 40 lines")
