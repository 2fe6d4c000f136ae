"""One epoch of a 2-worker loader of small tensors: how long the loop goes on after its last batch."""

import time

import torch
from torch.utils.data import DataLoader, Dataset


class Zeros(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.zeros(4)


if __name__ == "__main__":
    last = None
    for _ in DataLoader(Zeros(), batch_size=2, num_workers=2):
        last = time.monotonic()
    print(f"after the last batch: {time.monotonic() - last:.2f} s")
