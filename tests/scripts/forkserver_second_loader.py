"""Two DataLoaders in a row under forkserver, each timed to its first batch; with the argument
`torch`, the server preloads torch as well as the main script. docs/bench.md quotes the figures
(python -m harness experiment forkserver_second_loader)."""

import multiprocessing
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Numbers(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index)


def first_batch_after(loader):
    started = time.perf_counter()
    next(iter(loader))
    return time.perf_counter() - started


def main():
    if sys.argv[1:] == ["torch"]:
        multiprocessing.set_forkserver_preload(["__main__", "torch"])
    for number in (1, 2):
        loader = DataLoader(Numbers(), batch_size=2, num_workers=2, multiprocessing_context="forkserver")
        print(f"loader {number}: first batch after {first_batch_after(loader):.2f} s", flush=True)


if __name__ == "__main__":
    main()
