"""Keep every batch of an epoch in memory (e.g. to compute metrics at the end), two workers,
as copies, so that the tensors received from the workers are freed one by one.

The process runs with a soft limit of 256 open files, the default on macOS (1024 on many Linux
distributions), set here so the limit is the same on every machine (Windows has no such limit,
and no `resource` module).
"""

try:
    import resource
except ImportError:  # Windows
    resource = None

import torch
from torch.utils.data import DataLoader, Dataset

if resource is not None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


class Features(Dataset):
    def __len__(self):
        return 2000

    def __getitem__(self, index):
        return torch.full((8,), float(index)), index % 10


def main():
    loader = DataLoader(Features(), batch_size=4, num_workers=2)
    kept = [features.clone() for features, labels in loader]  # copies: each received batch is freed
    print(f"kept {len(kept)} batches")


if __name__ == "__main__":
    main()
