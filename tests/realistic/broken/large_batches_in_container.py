"""Full-resolution float32 frames, batch 8, two workers, in a Docker container with its default
/dev/shm of 64 MB ("ERROR: Unexpected bus error encountered in worker").

check-options: --shm-mb 64
pitfalls: 16
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return torch.rand(3, 720, 1280)


def main():
    loader = DataLoader(Frames(), batch_size=8, num_workers=2)
    for step, batch in enumerate(loader):
        batch.mean()
        if step == 8:
            break


if __name__ == "__main__":
    main()
