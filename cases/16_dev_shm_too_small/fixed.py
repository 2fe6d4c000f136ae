"""Camera frames as uint8 tensors, batch 4, two workers, one batch ahead each: 12 MB a batch."""

import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return torch.full((3, 1024, 1024), index, dtype=torch.uint8)  # a 3 MB frame, as stored


def main():
    loader = DataLoader(Frames(), batch_size=4, num_workers=2, prefetch_factor=1)
    total = 0
    for batch in loader:
        frames = batch.float() / 255  # to float32 in the main process, where it is used
        total += frames.shape[0]
    print(f"{total} frames loaded")


if __name__ == "__main__":
    main()
