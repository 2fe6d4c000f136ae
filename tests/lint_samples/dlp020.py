"""DLP020: a module global read in a worker, set only in main() or under the main guard."""

import os

import torch
from torch.utils.data import DataLoader, Dataset

SCALE = 1.0
CONFIG = {"flip": False}
ROOT = "data"
CACHE = None


class Samples(Dataset):
    def __init__(self, mean):
        self.mean = mean * SCALE  # near miss: __init__ runs in the main process

    def __len__(self):
        return 8

    def __getitem__(self, index):
        global CACHE
        if CACHE is None:  # near miss: the worker sets it itself
            CACHE = {}
        path = os.path.join(ROOT, f"{index}.pt")  # near miss: ROOT is never changed
        sample = torch.full((2,), float(index)) * SCALE  # DLP020
        return sample.flip(0) if CONFIG["flip"] else sample, path  # DLP020


def collate(batch):
    return [item for item, _ in batch], args.crop  # DLP020


def seed_worker(worker_id):
    torch.manual_seed(SEED + worker_id)  # near miss: not set by main


SEED = 0


def main():
    global SCALE
    SCALE = 0.5
    CONFIG["flip"] = True
    os.environ["OMP_NUM_THREADS"] = "1"  # near miss: a module, not the script's state
    torch.backends.cudnn.benchmark = True
    local = Samples(0.0)
    return DataLoader(local, num_workers=2, collate_fn=collate, worker_init_fn=seed_worker)


if __name__ == "__main__":
    import argparse

    args = argparse.ArgumentParser().parse_args()
    main()
