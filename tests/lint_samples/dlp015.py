"""DLP015: a process pool started in code that runs inside a DataLoader worker."""

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import psutil
from psutil import Process
from torch.utils.data import DataLoader, Dataset


def decode(tile):
    return tile


class Tiles(Dataset):
    def __init__(self):
        self.pool = None
        with multiprocessing.Pool(2) as pool:  # near miss: __init__ runs in the main process
            self.sizes = pool.map(decode, range(4))

    def __getitem__(self, index):
        with multiprocessing.Pool(2) as pool:  # DLP015
            return pool.map(decode, range(index))

    def __len__(self):
        return 4


class Threads(Dataset):
    def __getitem__(self, index):
        with ThreadPoolExecutor(2) as pool:  # near miss: threads
            return list(pool.map(decode, range(index)))


class Watched(Dataset):
    def __getitem__(self, index):
        rss = psutil.Process(os.getpid()).memory_info().rss  # near miss: psutil inspects, starts nothing
        return index, rss, Process().pid  # near miss: the same, imported by name

    def __len__(self):
        return 4


def collate(batch):
    with ProcessPoolExecutor(2) as pool:  # DLP015
        return list(pool.map(decode, batch))


def main():
    with multiprocessing.Pool(2) as pool:  # near miss: the main process
        pool.map(decode, range(4))
    return DataLoader(Tiles(), num_workers=2, collate_fn=collate)
