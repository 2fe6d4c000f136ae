"""An HDF5 dataset that opens the file once, in __init__, and keeps the handle.

pitfalls: 02
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
        self.file = h5py.File(path, "r")
        self.features = self.file["features"]

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return torch.from_numpy(self.features[index])


if __name__ == "__main__":
    with h5py.File(PATH, "w") as f:
        f.create_dataset("features", data=np.random.rand(64, 4).astype("float32"))
    loader = DataLoader(H5Features(PATH), batch_size=8, num_workers=2)
    total = sum(batch.sum() for batch in loader)
    print(f"sum {float(total):.2f}")
