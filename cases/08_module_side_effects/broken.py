"""Train with two DataLoader workers, logging into a run directory named after the start time.

The run directory is created at the top level of the script, next to the imports.
"""

import datetime
import os

import torch
from torch.utils.data import DataLoader, Dataset

RUN_DIR = os.path.join("runs", datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f"))
os.makedirs(RUN_DIR)


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index * index)


def main():
    loader = DataLoader(Squares(), batch_size=4, num_workers=2)
    with open(os.path.join(RUN_DIR, "log.txt"), "w") as log:
        for step, batch in enumerate(loader):
            log.write(f"step {step}: {int(batch.sum())}\n")
    runs = sorted(name for name in os.listdir("runs") if name >= os.path.basename(RUN_DIR))
    print(f"run directories made by this run: {runs}")
    assert len(runs) == 1, f"one training run made {len(runs)} run directories: {runs}"


if __name__ == "__main__":
    main()
