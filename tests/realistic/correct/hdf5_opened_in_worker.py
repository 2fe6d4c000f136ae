"""The HDF5 fix: keep the path, open the file lazily in each worker.

pitfalls:
risks:
"""

import os
import tempfile

import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

PATH = os.path.join(tempfile.gettempdir(), "features.h5")


class H5Features(Dataset):
    def __init__(self, path):
        self.path = path
        self.file = None
        with h5py.File(path, "r") as f:
            self.length = len(f["features"])

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.file is None:
            self.file = h5py.File(self.path, "r")
        return torch.from_numpy(self.file["features"][index])


if __name__ == "__main__":
    with h5py.File(PATH, "w") as f:
        f.create_dataset("features", data=np.random.rand(64, 4).astype("float32"))
    total = sum(batch.sum() for batch in DataLoader(H5Features(PATH), batch_size=8, num_workers=2))
    print(f"sum {float(total):.2f}")
