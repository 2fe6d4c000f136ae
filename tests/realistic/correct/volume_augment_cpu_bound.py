"""3-D volumes with a heavy, CPU-bound augmentation (seconds a sample, nothing waited on), as a
medical-imaging pipeline has: slow, never hung, whatever `--stall` says; its first batch, seconds
of work, is no start-up cost either.

pitfalls:
risks:
check-options: --stall 1
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

SMOOTHING_ROUNDS = 2500  # about 1.5 CPU-seconds a 64³ volume here: a batch, 3 s, is 3 stalls


def smooth(volume, rounds):
    for _ in range(rounds):
        volume = (volume + np.roll(volume, 1, 0) + np.roll(volume, 1, 1) + np.roll(volume, 1, 2)) / 4
    return volume


class Volumes(Dataset):
    def __init__(self, count, shape=(64, 64, 64)):
        self.count, self.shape = count, shape

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        volume = np.random.default_rng(index).standard_normal(self.shape, dtype=np.float32)
        return torch.from_numpy(smooth(volume, SMOOTHING_ROUNDS)), index % 2


def main():
    loader = DataLoader(Volumes(4), batch_size=2, num_workers=2, persistent_workers=True)
    for epoch in range(2):
        seen = 0
        for volumes, labels in loader:
            seen += len(labels)
        print(f"epoch {epoch}: {seen} volumes")


if __name__ == "__main__":
    main()
