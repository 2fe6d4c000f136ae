"""A Dataset whose __getitem__ raises in a DataLoader worker."""

from torch.utils.data import DataLoader, Dataset


class Faulty(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        raise ValueError(f"sample {index} is corrupt")


if __name__ == "__main__":
    for batch in DataLoader(Faulty(), batch_size=2, num_workers=2):
        print(batch)
