"""A DataLoader worker that blocks forever inside __getitem__."""

import threading

from torch.utils.data import DataLoader, Dataset


class Stuck(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        print(f"worker waiting on item {index}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    for batch in DataLoader(Stuck(), batch_size=2, num_workers=2):
        print(batch)
