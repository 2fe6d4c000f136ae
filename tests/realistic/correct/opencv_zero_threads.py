"""OpenCV in the workers with cv2.setNumThreads(0) in worker_init_fn, the working value.

pitfalls:
risks:
"""

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def no_pool(worker_id):
    cv2.setNumThreads(0)


class Frames(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, index):
        return torch.from_numpy(cv2.resize(np.full((64, 64, 3), index, np.uint8), (32, 32)))


if __name__ == "__main__":
    cv2.resize(np.zeros((512, 512, 3), np.uint8), (256, 256))
    for frames in DataLoader(Frames(), batch_size=8, num_workers=2, worker_init_fn=no_pool):
        print(frames.shape)
