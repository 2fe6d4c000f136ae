"""OpenCV resizing in the workers; worker_init_fn limits OpenCV to one thread each.

pitfalls: 04
risks:
"""

import time

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def one_thread(worker_id):
    cv2.setNumThreads(1)


class Frames(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, index):
        frame = np.full((64, 64, 3), index, dtype=np.uint8)
        return torch.from_numpy(cv2.resize(frame, (32, 32)))


if __name__ == "__main__":
    photo = np.zeros((2000, 2000, 3), np.uint8)  # a full-size photo, to check the preprocessing
    preview = cv2.resize(photo, (500, 500), interpolation=cv2.INTER_AREA)  # on OpenCV's thread pool
    time.sleep(1.0)
    for frames in DataLoader(Frames(), batch_size=8, num_workers=2, worker_init_fn=one_thread):
        print(frames.shape)
