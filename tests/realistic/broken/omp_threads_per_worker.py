"""Each worker asks torch for 4 intra-op threads to speed up its feature extraction.

pitfalls: 14
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset


def more_threads(worker_id):
    torch.set_num_threads(4)


class Features(Dataset):
    def __init__(self):
        self.weights = torch.randn(256, 256)

    def __len__(self):
        return 32

    def __getitem__(self, index):
        return (self.weights @ self.weights).sum() + index


if __name__ == "__main__":
    warm = torch.randn(512, 512) @ torch.randn(512, 512)  # the parent's thread pool starts
    for batch in DataLoader(Features(), batch_size=8, num_workers=2, worker_init_fn=more_threads):
        print(batch)
