"""An IterableDataset opens its records file once, in `__init__`, and reads it line by line in
`__iter__`, each worker keeping every other line by its id. Under fork the two workers read
through one open file description, one offset (case 02): each reads the chunks the other did not,
so each meets the end of the file (StopIteration) after about half the lines, and keeps half of
those; the script prints about 1,000 records of 2,000, one of them torn, and exits 0. Under spawn
the open file cannot be pickled to the workers (case 02 again).

The fork(2) manual page, on the descriptors a child inherits (read here, Debian's manpages-dev):
"Each file descriptor in the child refers to the same open file description ... as the
corresponding file descriptor in the parent. This means that the two file descriptors share open
file status flags, file offset, ..."; the IterableDataset docstring (read here, torch 2.13.0):
"each worker process will have a different copy of the dataset object".

pitfalls: 02
risks:
"""

import os
import tempfile

import torch
from torch.utils.data import DataLoader, IterableDataset


class Records(IterableDataset):
    def __init__(self, path):
        self.file = open(path)

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        for number, line in enumerate(self.file):
            if info is None or number % info.num_workers == info.id:
                yield line


if __name__ == "__main__":
    path = os.path.join(tempfile.mkdtemp(), "records.txt")
    with open(path, "w") as out:
        out.writelines(f"record {n} " + "x" * 60 + "\n" for n in range(2000))
    seen = [line for batch in DataLoader(Records(path), batch_size=50, num_workers=2) for line in batch]
    whole = sum(line.startswith("record ") for line in seen)
    print(f"{len(seen)} records read, {whole} whole, of 2000")
