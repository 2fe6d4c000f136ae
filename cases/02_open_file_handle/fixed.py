"""Serve the lines of a text file as a dataset, with two DataLoader workers.

The Dataset keeps the path and opens the file lazily, once in each process that reads it.
"""

import os
import tempfile

from torch.utils.data import DataLoader, Dataset


class TextLines(Dataset):
    def __init__(self, path):
        self.path = path
        self.file = None  # opened on first use, in the process that reads
        self.offsets = []
        with open(path, encoding="utf-8") as file:
            while True:
                offset = file.tell()
                if not file.readline():
                    break
                self.offsets.append(offset)

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, index):
        if self.file is None:
            self.file = open(self.path, encoding="utf-8")
        self.file.seek(self.offsets[index])
        return self.file.readline().rstrip("\n")


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "samples.txt")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(f"sample {number}\n" for number in range(8))
        loader = DataLoader(TextLines(path), batch_size=4, num_workers=2)
        for batch in loader:
            print(batch)


if __name__ == "__main__":
    main()
