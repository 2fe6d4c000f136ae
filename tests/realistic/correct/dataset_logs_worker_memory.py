"""A Dataset that reports its worker's memory with psutil (cross-platform: its Windows build never
imports `resource`), as a training script that watches for leaks does.

pitfalls:
risks:
"""

import os

import psutil
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Tokens(Dataset):
    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        if index % 64 == 0:
            info = get_worker_info()
            worker = info.id if info is not None else "main"
            rss = psutil.Process(os.getpid()).memory_info().rss >> 20
            print(f"worker {worker}: {rss} MB at item {index}", flush=True)
        return torch.full((16,), index % 100)


def main():
    loader = DataLoader(Tokens(256), batch_size=32, num_workers=2)
    total = sum(int(batch.sum()) for batch in loader)
    print(f"sum {total}")


if __name__ == "__main__":
    main()
