"""A Dataset opens a zip archive of samples once, in `__init__`, and reads members from it in
`__getitem__`; the script has no `if __name__ == "__main__":` guard. Under fork the workers read
through the one file object the parent opened, one shared offset (case 02): a worker reads
another's bytes and fails (a bad zip header, a bad CRC, a zlib error); under spawn the archive
cannot be pickled to the workers (case 02 again), which fails before the missing guard (case 01)
can show: that one stays a risk lint names.

The shape of the "BadZipFile with num_workers > 0" reports, written from memory of them (not
re-read here: no internet); the zipfile module keeps one file object per ZipFile and seeks it for
each member (Lib/zipfile, `ZipFile.open`).

pitfalls: 02
risks: 01
"""

import io
import os
import zipfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

if not os.path.exists("samples.zip"):  # the data, made once
    with zipfile.ZipFile("samples.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(400):
            buffer = io.BytesIO()
            np.save(buffer, np.random.rand(2048))
            archive.writestr(f"sample_{i:04d}.npy", buffer.getvalue())


class ZipSamples(Dataset):
    def __init__(self, path):
        self.archive = zipfile.ZipFile(path)
        self.names = sorted(self.archive.namelist())

    def __len__(self):
        return len(self.names)

    def __getitem__(self, index):
        with self.archive.open(self.names[index]) as member:
            return torch.from_numpy(np.load(io.BytesIO(member.read())))


loader = DataLoader(ZipSamples("samples.zip"), batch_size=16, num_workers=4)
total = sum(batch.shape[0] for batch in loader)
print(f"read {total} samples")
