"""An epoch over 512 MB of precomputed features that each worker memory-maps from the file, with
four workers, on a machine (a container, a cluster job) whose memory limit is 2 GB."""

import os
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, path):
        self.path = path
        self.count = len(np.load(path, mmap_mode="r"))
        self.features = None  # mapped on first use, in the process that reads

    def __getstate__(self):
        # A mapping made in this process (by a look at dataset[0], say) would be pickled whole, as
        # an array, into every worker: each worker maps the file itself instead.
        return {**self.__dict__, "features": None}

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        if self.features is None:
            self.features = np.load(self.path, mmap_mode="r")
        return torch.from_numpy(np.array(self.features[index]))


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "features.npy")
        np.save(path, np.ones((500_000, 256), dtype=np.float32))  # 512 MB, as a feature extractor left it
        loader = DataLoader(Features(path), batch_size=1024, num_workers=4)
        total = sum(float(batch.sum()) for batch in loader)
        print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
