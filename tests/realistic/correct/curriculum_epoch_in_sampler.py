"""Curriculum learning with persistent workers: the epoch reaches the Dataset through the sampler.

pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler, Sampler


class NoisyPoints(Dataset):
    def __init__(self, n):
        self.points = torch.randn(n, 2)

    def __len__(self):
        return len(self.points)

    def __getitem__(self, key):
        epoch, index = key
        return self.points[index] + 0.1 * epoch * torch.randn(2)


class WithEpoch(Sampler):
    def __init__(self, sampler):
        self.sampler, self.epoch = sampler, 0

    def __len__(self):
        return len(self.sampler)

    def __iter__(self):
        return ((self.epoch, index) for index in self.sampler)


def main():
    train_set = NoisyPoints(256)
    sampler = WithEpoch(RandomSampler(train_set))
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=2, persistent_workers=True)
    for epoch in range(3):
        sampler.epoch = epoch
        spread = torch.cat([batch for batch in loader]).std().item()
        print(f"epoch {epoch}: spread {spread:.3f}")


if __name__ == "__main__":
    main()
