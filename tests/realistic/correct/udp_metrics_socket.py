"""A Dataset that reports its read times to a statsd-style collector over UDP, its socket made in
__init__. It looks like case 02 and is not: multiprocessing sends a socket to a spawned worker by
duplicating it (multiprocessing.reduction registers sockets, on Windows too), and the runs show it.

pitfalls:
risks:
"""

import socket
import time

import torch
from torch.utils.data import DataLoader, Dataset


class TimedReads(Dataset):
    def __init__(self, size, collector=("127.0.0.1", 8125)):
        self.size = size
        self.collector = collector
        self.metrics = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        started = time.perf_counter()
        item = torch.randn(16)
        elapsed_ms = (time.perf_counter() - started) * 1000
        self.metrics.sendto(f"data.read:{elapsed_ms:.3f}|ms".encode(), self.collector)
        return item


def main():
    for batch in DataLoader(TimedReads(64), batch_size=8, num_workers=2):
        batch.mean()


if __name__ == "__main__":
    main()
