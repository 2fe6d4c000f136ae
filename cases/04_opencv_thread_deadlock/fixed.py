"""Resize images with OpenCV in two DataLoader workers, after OpenCV ran once in the main process.

Set-up runs one OpenCV call on a large image (say, checking the preprocessing on a sample), then
spends a moment building the model, then starts the loader. Each worker turns OpenCV's own
threading off (0), rather than limiting it to one thread.
"""

import time

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Thumbnails(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        image = np.full((256, 256, 3), index, dtype=np.uint8)
        return torch.from_numpy(cv2.resize(image, (64, 64), interpolation=cv2.INTER_AREA))


def limit_opencv_threads(worker_id):
    cv2.setNumThreads(0)


def main():
    sample = np.zeros((2000, 2000, 3), dtype=np.uint8)
    cv2.resize(sample, (500, 500), interpolation=cv2.INTER_AREA)  # runs on OpenCV's thread pool
    time.sleep(1.0)  # stands for building the model: OpenCV's pool threads go idle meanwhile

    loader = DataLoader(Thumbnails(), batch_size=4, num_workers=2, worker_init_fn=limit_opencv_threads)
    for batch in loader:
        print(tuple(batch.shape))


if __name__ == "__main__":
    main()
