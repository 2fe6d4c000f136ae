"""Copy-on-read through a numpy object array: 1.5 M file paths kept as `np.array(paths,
dtype=object)` (the replies to pytorch#13246 warn that an object array is a list of Python
objects still) beside a small `classes` list; every forked worker's memory grows as it reads.

pitfalls: 06
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ImagePaths(Dataset):
    def __init__(self, count):
        self.classes = ["cat", "dog", "bird", "fish"]
        self.paths = np.array([f"/data/train/{n % 4}/{n:09d}.jpg" for n in range(count)], dtype=object)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        path = self.paths[index]
        label = self.classes.index(self.classes[int(path.split("/")[3])])
        return torch.tensor([len(path), label])


if __name__ == "__main__":
    loader = DataLoader(ImagePaths(1_500_000), batch_size=500, shuffle=True, num_workers=2)
    total = 0
    for batch in loader:
        total += int(batch[:, 1].sum())
    print(f"labels summed: {total}")
