"""The descriptors a DataLoader's live workers hold in the main process: one loader of one
persistent worker, then one of eight, each counted after its first batch; the start method is the
profile's. Case 24 quotes the figures (python -m harness experiment worker_descriptors)."""

import os

import torch
from torch.utils.data import DataLoader, Dataset

FOLDER = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"


class Numbers(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor(index)


def opened() -> int:
    return len(os.listdir(FOLDER)) - 1  # less the one that lists them


def held_by(workers: int) -> tuple[DataLoader, int]:
    before = opened()
    loader = DataLoader(Numbers(), batch_size=8, num_workers=workers, persistent_workers=True)
    next(iter(loader))
    return loader, opened() - before


def open_file_limit() -> int | None:
    """The soft limit; None where `resource` is missing (Windows, and its emulation)."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main():
    soft = open_file_limit()
    print(f"open-file limit {soft}; {opened()} descriptors open before any loader")
    _one, by_one = held_by(1)  # kept alive, with its worker
    _eight, by_eight = held_by(8)
    worker = (by_eight - by_one) / 7
    print(f"a loader of 1 worker: {by_one} descriptors; a loader of 8 workers: {by_eight}")
    print(f"{worker:.2f} descriptors a worker, {by_one - worker:.2f} a loader")
    if soft is not None:
        print(f"{(soft - opened()) / worker:.0f} more workers reach the limit")


if __name__ == "__main__":
    main()
