"""Random crops and flips (torch's and Python's generators) on a Dataset that holds its config,
parsed in main(): the samples differ from run to run, and nothing the workers need is left behind.

pitfalls:
risks:
"""

import argparse
import random

import torch
from torch.utils.data import DataLoader, Dataset

DEFAULTS = {"crop": 12, "flip": 0.5}


class Augmented(Dataset):
    def __init__(self, count, crop, flip):
        generator = torch.Generator().manual_seed(2)
        self.images = torch.rand(count, 3, 16, 16, generator=generator)
        self.crop, self.flip = crop, flip

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        top, left = torch.randint(0, 16 - self.crop + 1, (2,)).tolist()
        image = self.images[index][:, top : top + self.crop, left : left + self.crop]
        if random.random() < self.flip:
            image = image.flip(-1)
        return image


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--crop", type=int, default=DEFAULTS["crop"])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    dataset = Augmented(64, args.crop, DEFAULTS["flip"])
    loader = DataLoader(dataset, batch_size=8, num_workers=args.workers, persistent_workers=True)
    total = 0.0
    for epoch in range(2):
        for images in loader:
            total += float(images.mean())
    print(f"mean of the batch means: {total / (2 * len(loader)):.3f}")


if __name__ == "__main__":
    main()
