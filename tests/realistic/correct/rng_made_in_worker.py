"""A generator made lazily in each worker, from the seed torch gives that worker.

pitfalls:
risks:
"""

import random

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Noisy(Dataset):
    def __init__(self):
        self.rng = None

    def __len__(self):
        return 64

    def __getitem__(self, index):
        if self.rng is None:
            info = get_worker_info()
            self.rng = random.Random(info.seed if info else 0)
        return torch.tensor(index + self.rng.random())


if __name__ == "__main__":
    print(torch.cat(list(DataLoader(Noisy(), batch_size=8, num_workers=2))).sum())
