"""Augmentations as transform objects; the random flip keeps a RandomState for reproducibility.

pitfalls: 09
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RandomFlip:
    def __init__(self, p=0.5, seed=0):
        self.p = p
        self.R = np.random.RandomState(seed)

    def __call__(self, image):
        return image[:, ::-1].copy() if self.R.rand() < self.p else image


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image


class Images(Dataset):
    def __init__(self, count, transform):
        self.count, self.transform = count, transform

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        image = np.full((4, 4), index, dtype=np.float32)
        return torch.from_numpy(self.transform(image))


if __name__ == "__main__":
    loader = DataLoader(Images(64, Compose([RandomFlip()])), batch_size=8, num_workers=2)
    for images in loader:
        pass
    print("done")
