"""A Dataset that draws its augmentation parameters from a Python generator made in __init__.

pitfalls: 02
risks:
"""

import itertools

import torch
from torch.utils.data import DataLoader, Dataset


def scales():
    for step in itertools.count():
        yield 1.0 + (step % 5) / 10


class Scaled(Dataset):
    def __init__(self, size):
        self.size = size
        self.scales = scales()

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return torch.ones(4) * next(self.scales)


def main():
    for batch in DataLoader(Scaled(48), batch_size=8, num_workers=2):
        batch.sum()


if __name__ == "__main__":
    main()
