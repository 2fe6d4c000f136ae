"""uint8 thumbnails in small batches in a container with a 64 MB /dev/shm: what is in flight fits.

check-options: --shm-mb 64
pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Thumbnails(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return torch.randint(0, 256, (3, 64, 64), dtype=torch.uint8)


def main():
    for batch in DataLoader(Thumbnails(), batch_size=32, num_workers=2):
        batch.float().mean()


if __name__ == "__main__":
    main()
