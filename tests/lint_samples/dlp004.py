"""DLP004: a random generator object kept on a Dataset."""

import random

import numpy as np
import torch
from torch.utils.data import Dataset


class Crops(Dataset):
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)  # DLP004
        self.legacy = np.random.RandomState(seed)  # DLP004
        self.py = random.Random(seed)  # DLP004
        self.gen = torch.Generator()  # DLP004
        self.seed = seed  # near miss: a seed, not a generator

    def __getitem__(self, index):
        return np.random.default_rng(self.seed + index).random()  # near miss: made per sample


class Reseeded(Dataset):
    """The documented fix: worker_init_fn gives each worker its own generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)  # near miss: replaced in every worker below

    def __getitem__(self, index):
        return self.rng.random()


def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)


def loader():
    return torch.utils.data.DataLoader(Reseeded(0), num_workers=2, worker_init_fn=seed_worker)


class Jitter:
    """A transform object that keeps a generator: the Dataset holding it copies it to every worker."""

    def __init__(self, seed):
        self.R = np.random.RandomState(seed)  # DLP004

    def __call__(self, x):
        return x + self.R.normal()


class Flip:
    def __init__(self):
        self.rng = np.random.default_rng()  # near miss: a worker_init_fn here replaces `rng`

    def __call__(self, x):
        return x


class Unused:
    def __init__(self):
        self.rng2 = random.Random()  # near miss: no Dataset holds one


class Augmented(Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __getitem__(self, index):
        return self.transform(float(index))


def build():
    pipeline = [Jitter(0)]
    return Augmented(transform=pipeline), Augmented(Flip())
