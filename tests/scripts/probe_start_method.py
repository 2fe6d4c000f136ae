"""Prints the start method seen by the parent and inside a DataLoader worker, as JSON."""

import json
import multiprocessing

from torch.utils.data import DataLoader, Dataset


class StartMethodSeen(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, index):
        return multiprocessing.get_start_method()


def main():
    loader = DataLoader(StartMethodSeen(), batch_size=1, num_workers=2, collate_fn=list)
    workers = sorted({item for batch in loader for item in batch})
    print(json.dumps({"parent": multiprocessing.get_start_method(), "workers": workers}))


if __name__ == "__main__":
    main()
