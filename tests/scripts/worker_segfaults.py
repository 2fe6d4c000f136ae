"""A DataLoader worker that dies by SIGSEGV."""

import os
import signal

from torch.utils.data import DataLoader, Dataset


class Crashing(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGSEGV)


if __name__ == "__main__":
    for batch in DataLoader(Crashing(), batch_size=2, num_workers=1):
        print(batch)
