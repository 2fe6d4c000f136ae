"""Samples pickled one after another into one file; the Dataset opens it once and unpickles the
next record on each call (a "streaming reader" from a bug report: "UnpicklingError: invalid load
key in worker 1, only with num_workers > 0").

pitfalls: 02
risks:
"""

import os
import pickle
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

RECORDS = 400


def write_records(path):
    with open(path, "wb") as out:
        for index in range(RECORDS):
            pickle.dump({"id": index, "features": [float(index)] * (index % 7 + 5)}, out)


class PickleStream(Dataset):
    def __init__(self, path):
        self.file = open(path, "rb")

    def __len__(self):
        return RECORDS

    def __getitem__(self, index):
        record = pickle.load(self.file)
        return torch.tensor(record["features"][:5])


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "samples.pkl")
        write_records(path)
        dataset = PickleStream(path)
        for batch in DataLoader(dataset, batch_size=20, num_workers=2):
            batch.sum()
        dataset.file.close()


if __name__ == "__main__":
    main()
