"""Throughput of CPU-heavy transforms in two workers: `METHOD THREADS_PER_WORKER` as arguments.

Case 14's README quotes its figures: python tests/scripts/openmp_worker_throughput.py fork 1
"""

import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Transformed(Dataset):
    def __len__(self):
        return 96

    def __getitem__(self, index):
        image = torch.full((500, 500), float(index))
        return (image @ image @ image).mean()


def one_thread(worker_id):
    torch.set_num_threads(1)


def two_threads(worker_id):
    torch.set_num_threads(2)


def main():
    method, per_worker = sys.argv[1], int(sys.argv[2])
    torch.set_num_threads(2)
    warm_up = torch.rand(1000, 1000)
    warm_up @ warm_up
    init = two_threads if per_worker == 2 else one_thread
    loader = DataLoader(
        Transformed(), batch_size=4, num_workers=2, worker_init_fn=init, multiprocessing_context=method
    )
    for epoch in range(3):
        started = time.perf_counter()
        batches = iter(loader)
        next(batches)
        first = time.perf_counter()
        samples = sum(len(batch) for batch in batches)
        done = time.perf_counter()
        print(
            f"{method}, {per_worker} thread(s) per worker, epoch {epoch}: first batch after "
            f"{first - started:.2f} s, then {samples / (done - first):.1f} samples/s"
        )


if __name__ == "__main__":
    main()
