"""Case 24: the descriptors the main process holds while DataLoaders with persistent workers are
alive, by kind, under the profile's start method; and its soft limit of open files.

    python descriptors_per_worker.py [LOADERS] [WORKERS]   (default 2 loaders of 8 workers)
"""

import collections
import os
import resource
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor([index * index])


def held() -> collections.Counter:
    """The main process's open descriptors by kind ("pipe", "socket", "file")."""
    kinds = collections.Counter()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed meanwhile
            continue
        kinds[target.split(":")[0] if ":[" in target else "file"] += 1
    return kinds


def main():
    loaders, workers = (int(arg) for arg in (sys.argv[1:] or ["2", "8"]))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    before = held()
    alive = []
    for _ in range(loaders):
        loader = DataLoader(Squares(), batch_size=4, num_workers=workers, persistent_workers=True)
        for _ in loader:  # an epoch: the workers stay
            pass
        alive.append(loader)
    added = held() - before
    total = sum(added.values())
    print(f"soft limit {soft} open files; {torch.multiprocessing.get_start_method()}")
    print(f"{loaders} loader(s) of {workers} persistent workers: {total} more descriptors ({dict(added)})")
    print(f"per worker {total / (loaders * workers):.2f}, pipes per worker {added['pipe'] / (loaders * workers):.2f}")


if __name__ == "__main__":
    main()
