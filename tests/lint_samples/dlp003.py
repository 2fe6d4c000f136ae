"""DLP003: an open file, connection or handle kept on a Dataset from __init__."""

import sqlite3

import h5py
from torch.utils.data import Dataset


class Lines(Dataset):
    def __init__(self, path):
        self.file = open(path)  # DLP003
        self.db = sqlite3.connect(path + ".db")  # DLP003
        self.h5 = h5py.File(path + ".h5", "r")  # DLP003
        self.path = path  # near miss: the path, opened in the worker
        with open(path) as f:  # near miss: read once and closed
            self.count = len(f.readlines())

    def __getitem__(self, index):
        with open(self.path) as f:  # near miss: opened where it is used
            return f.readlines()[index]


class NotADataset:
    def __init__(self, path):
        self.file = open(path)  # near miss: not a Dataset
