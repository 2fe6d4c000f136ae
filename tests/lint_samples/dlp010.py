"""DLP010: cv2.setNumThreads(N), N not 0, in a worker_init_fn."""

import cv2
from torch.utils.data import DataLoader


def worker_init(worker_id):
    cv2.setNumThreads(1)  # DLP010


def limit_threads(worker_id):
    cv2.setNumThreads(0)  # near miss: 0 turns the pool off


def main():
    cv2.setNumThreads(4)  # near miss: in the main process
    DataLoader(range(8), num_workers=2, worker_init_fn=limit_threads)


if __name__ == "__main__":
    main()
