"""Curriculum learning: noise grows with the epoch, set on the Dataset; persistent workers for speed.

pitfalls:
risks: 15
"""

import torch
from torch.utils.data import DataLoader, Dataset


class NoisyPoints(Dataset):
    def __init__(self, n):
        self.points = torch.randn(n, 2)
        self.noise = 0.0

    def set_epoch(self, epoch):
        self.noise = 0.1 * epoch

    def __len__(self):
        return len(self.points)

    def __getitem__(self, index):
        return self.points[index] + self.noise * torch.randn(2)


def main():
    train_set = NoisyPoints(256)
    loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=2, persistent_workers=True)
    for epoch in range(3):
        train_set.set_epoch(epoch)
        spread = torch.cat([batch for batch in loader]).std().item()
        print(f"epoch {epoch}: spread {spread:.3f}")


if __name__ == "__main__":
    main()
