"""Stream 100 records from an IterableDataset through two DataLoader workers."""

from torch.utils.data import DataLoader, IterableDataset


class Records(IterableDataset):
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        return iter(range(self.count))  # stands for reading records from a file or a database


def main():
    loader = DataLoader(Records(100), batch_size=10, num_workers=2)
    seen = [record for batch in loader for record in batch.tolist()]
    print(f"{len(seen)} records delivered, {len(set(seen))} distinct")
    assert sorted(seen) == list(range(100)), (
        f"expected each of the 100 records once, got {len(seen)} records ({len(set(seen))} distinct)"
    )


if __name__ == "__main__":
    main()
