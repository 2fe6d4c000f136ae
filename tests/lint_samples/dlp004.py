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
