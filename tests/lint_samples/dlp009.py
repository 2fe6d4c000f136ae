"""DLP009: torch.set_num_threads(N), N not 1, in a worker_init_fn."""

import torch
from torch.utils.data import DataLoader


def init(worker_id):
    torch.set_num_threads(4)  # DLP009


def worker_init_threads(worker_id, threads=2):
    torch.set_num_threads(threads)  # DLP009


def one_thread(worker_id):
    torch.set_num_threads(1)  # near miss: one thread per worker


def main():
    torch.set_num_threads(8)  # near miss: in the main process
    DataLoader(range(8), num_workers=2, worker_init_fn=init)
    DataLoader(range(8), num_workers=2, worker_init_fn=one_thread)


if __name__ == "__main__":
    main()
