"""DLP002: a lambda or a nested function as collate_fn / worker_init_fn, or kept on a Dataset."""

from torch.utils.data import DataLoader, Dataset


def collate(batch):
    return batch


def seed_worker(worker_id):
    return worker_id


class Items(Dataset):
    def __init__(self):
        self.transform = lambda x: x * 2  # DLP002
        self.scale = 2  # near miss: a plain value

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.transform(index)


def main():
    def local_collate(batch):
        return batch

    DataLoader(Items(), num_workers=2, collate_fn=lambda b: b)  # DLP002
    DataLoader(Items(), num_workers=2, collate_fn=local_collate)  # DLP002
    DataLoader(Items(), num_workers=2, worker_init_fn=lambda i: None)  # DLP002
    pad = lambda b: b  # noqa: E731
    DataLoader(Items(), num_workers=2, collate_fn=pad)  # DLP002
    # near misses: functions defined at module level pickle by reference
    DataLoader(Items(), num_workers=2, collate_fn=collate, worker_init_fn=seed_worker)


if __name__ == "__main__":
    main()
