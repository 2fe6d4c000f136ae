"""Stream 100 records from an IterableDataset through two DataLoader workers, sharded per worker."""

import itertools

from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Records(IterableDataset):
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        records = iter(range(self.count))  # stands for reading records from a file or a database
        info = get_worker_info()  # None in the main process (num_workers=0)
        if info is None:
            return records
        return itertools.islice(records, info.id, None, info.num_workers)  # this worker's share


def main():
    loader = DataLoader(Records(100), batch_size=10, num_workers=2)
    seen = [record for batch in loader for record in batch.tolist()]
    print(f"{len(seen)} records delivered, {len(set(seen))} distinct")
    assert sorted(seen) == list(range(100)), (
        f"expected each of the 100 records once, got {len(seen)} records ({len(set(seen))} distinct)"
    )


if __name__ == "__main__":
    main()
