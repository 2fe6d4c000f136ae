"""Camera frames as float32 tensors, batch 4, two workers: 48 MB a batch through shared memory."""

import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return torch.full((3, 1024, 1024), index / 16)  # a 12 MB float32 frame


def main():
    loader = DataLoader(Frames(), batch_size=4, num_workers=2)
    total = sum(batch.shape[0] for batch in loader)
    print(f"{total} frames loaded")


if __name__ == "__main__":
    main()
