"""Serve the lines of a text file as a dataset, shuffled, with two DataLoader workers.

The Dataset opens the file once, in __init__, and keeps the open file object. With the argument
`--one-core` the script and its workers run on one CPU, so that the workers never run at once.
"""

import os
import sys
import tempfile

from torch.utils.data import DataLoader, Dataset


class TextLines(Dataset):
    def __init__(self, path):
        self.file = open(path, encoding="utf-8")
        self.offsets = []
        while True:
            offset = self.file.tell()
            if not self.file.readline():
                break
            self.offsets.append(offset)

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, index):
        self.file.seek(self.offsets[index])
        return index, self.file.readline().rstrip("\n")


def write_lines(path, count):
    with open(path, "w", encoding="utf-8") as out:
        for number in range(count):
            out.write(f"sample {number:06d} " + "x" * 100 + "\n")


def main():
    if "--one-core" in sys.argv[1:]:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the workers inherit it
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "samples.txt")
        write_lines(path, 20_000)
        loader = DataLoader(TextLines(path), batch_size=100, shuffle=True, num_workers=2)
        wrong = 0
        for indices, lines in loader:
            for index, line in zip(indices.tolist(), lines, strict=True):
                wrong += not line.startswith(f"sample {index:06d} ")
        print(f"read {len(loader.dataset)} lines, {wrong} of them not the line asked for")
        assert wrong == 0, f"{wrong} lines came back from the wrong place in the file"


if __name__ == "__main__":
    main()
