"""A sharded IterableDataset of 30 records (each worker takes every 4th), 4 workers, batches of 8
with `drop_last=True`, "to keep batch norm happy". drop_last applies to each worker's share, not
to the stream: every share holds 7 or 8 records, so the two shares of 7 are dropped whole, 14 of
30 records in all, where one process would drop 6. The script exits 0 and trains on half its
data.

From torch's own fetcher (torch/utils/data/_utils/fetch.py, `_IterableDatasetFetcher.fetch`,
read here): each worker's fetcher collects its own batch and raises StopIteration when
`self.drop_last and len(data) < len(possibly_batched_index)`; and the IterableDataset docstring's
example 1 split (torch/utils/data/dataset.py, read here).

pitfalls: 10
risks:
"""

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Records(IterableDataset):
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        for index in range(worker, self.count, workers):
            yield torch.tensor([float(index)])


def main():
    loader = DataLoader(Records(30), batch_size=8, num_workers=4, drop_last=True)
    seen = sum(len(batch) for batch in loader)
    print(f"trained on {seen} of 30 records")


if __name__ == "__main__":
    main()
