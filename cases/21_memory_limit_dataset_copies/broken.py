"""An epoch over 512 MB of precomputed features that the Dataset loads into memory, with four
workers, on a machine (a container, a cluster job) whose memory limit is 2 GB."""

import os
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, path):
        self.features = np.load(path)  # the whole array, in this process's memory

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return torch.from_numpy(self.features[index])


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "features.npy")
        np.save(path, np.ones((500_000, 256), dtype=np.float32))  # 512 MB, as a feature extractor left it
        loader = DataLoader(Features(path), batch_size=1024, num_workers=4)
        total = sum(float(batch.sum()) for batch in loader)
        print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
