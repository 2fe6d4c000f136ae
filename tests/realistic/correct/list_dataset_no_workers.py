"""The beginner tutorial's shape: a Dataset of Python records and a DataLoader without workers
(num_workers left at 0), everything in the main process.

pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __init__(self):
        self.samples = [(float(i % 97), i % 2) for i in range(20_000)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        x, label = self.samples[index]
        return torch.tensor([x]), label


def main():
    loader = DataLoader(Points(), batch_size=500, shuffle=True)
    for features, labels in loader:
        (features.squeeze(1) * labels).mean()


if __name__ == "__main__":
    main()
