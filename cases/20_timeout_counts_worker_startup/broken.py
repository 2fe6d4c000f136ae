"""An epoch over a small dataset with four workers, and a timeout so that a stuck worker fails
the run instead of hanging it: a batch takes milliseconds, so one second looks generous."""

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return torch.tensor([index, index * index], dtype=torch.float32)


def main():
    loader = DataLoader(Squares(), batch_size=32, num_workers=4, timeout=1)
    total = sum(float(batch.sum()) for batch in loader)
    print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
