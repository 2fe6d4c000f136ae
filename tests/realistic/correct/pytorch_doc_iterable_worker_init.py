"""The PyTorch documentation's own IterableDataset example 2: the range is split between workers
in a `worker_init_fn`, through `get_worker_info().dataset`. Each item comes once; a check that
looks only at `__iter__` would call it unsharded.

From the IterableDataset docstring, torch/utils/data/dataset.py (torch 2.13.0, read here):
"Example 2: splitting workload across all workers using :attr:`worker_init_fn`", `MyIterableDataset`
and its `worker_init_fn` as written there, run with a longer range and `math` imported.

pitfalls:
risks:
"""

import math

import torch


class MyIterableDataset(torch.utils.data.IterableDataset):
    def __init__(self, start, end):
        super(MyIterableDataset).__init__()
        assert end > start, "this example only works with end >= start"
        self.start = start
        self.end = end

    def __iter__(self):
        return iter(range(self.start, self.end))


def worker_init_fn(worker_id):
    worker_info = torch.utils.data.get_worker_info()
    dataset = worker_info.dataset  # the dataset copy in this worker process
    overall_start = dataset.start
    overall_end = dataset.end
    # configure the dataset to only process the split workload
    per_worker = int(math.ceil((overall_end - overall_start) / float(worker_info.num_workers)))  # noqa: RUF046 (as the docs write it)
    worker_id = worker_info.id
    dataset.start = overall_start + worker_id * per_worker
    dataset.end = min(dataset.start + per_worker, overall_end)


if __name__ == "__main__":
    ds = MyIterableDataset(start=3, end=67)
    items = list(torch.utils.data.DataLoader(ds, num_workers=2, worker_init_fn=worker_init_fn))
    print(len(items), "items,", len({int(i) for i in items}), "distinct")
