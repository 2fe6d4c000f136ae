"""seed_everything(0) once in main(), numpy's global generator used for augmentation in
__getitem__: since PyTorch 1.9 each worker's numpy is seeded from its own seed, so the workers
draw different numbers.

pitfalls:
risks:
"""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class Flipped(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        image = torch.arange(16, dtype=torch.float32).reshape(4, 4) + index
        return image.flip(1) if np.random.rand() < 0.5 else image


def main():
    seed_everything(0)
    for batch in DataLoader(Flipped(), batch_size=8, num_workers=2):
        batch.mean()


if __name__ == "__main__":
    main()
