"""An epoch over a small dataset with four workers, and a timeout that also covers a worker's
start-up (where workers are spawned, each imports torch before its first batch)."""

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return torch.tensor([index, index * index], dtype=torch.float32)


def main():
    # The clock of `timeout` runs from the moment the workers are started, not from when they are
    # ready: size it for the slowest batch plus a worker's start-up, seconds on Windows and macOS.
    loader = DataLoader(Squares(), batch_size=32, num_workers=4, timeout=60)
    total = sum(float(batch.sum()) for batch in loader)
    print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
