"""A DataLoader worker killed by SIGKILL (as the OOM killer would)."""

import os
import signal

from torch.utils.data import DataLoader, Dataset


class Killed(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    for batch in DataLoader(Killed(), batch_size=2, num_workers=1):
        print(batch)
