"""Large scans cut into tiles, each tile filtered on a ProcessPoolExecutor inside __getitem__.

pitfalls: 17
risks:
"""

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def denoise(tile):
    return np.clip(tile - tile.mean(), 0, None)


class Scans(Dataset):
    def __init__(self, count, side=256, tile=64):
        self.count, self.side, self.tile = count, side, tile

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        scan = np.random.default_rng(index).random((self.side, self.side), dtype=np.float32)
        tiles = [scan[r : r + self.tile] for r in range(0, self.side, self.tile)]
        with ProcessPoolExecutor(max_workers=2) as pool:
            return torch.from_numpy(np.concatenate(list(pool.map(denoise, tiles))))


if __name__ == "__main__":
    loader = DataLoader(Scans(16), batch_size=4, num_workers=2)
    for batch in loader:
        print(batch.shape)
