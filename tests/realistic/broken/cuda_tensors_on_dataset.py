"""Normalisation constants moved to the GPU once, in the Dataset's __init__.

pitfalls:
risks: 05
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Normalised(Dataset):
    def __init__(self, count):
        self.mean = torch.tensor([0.5, 0.5, 0.5]).cuda()
        self.data = torch.rand(count, 3)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index].cuda() - self.mean


if __name__ == "__main__":
    for batch in DataLoader(Normalised(64), batch_size=8, num_workers=2):
        print(batch.device)
