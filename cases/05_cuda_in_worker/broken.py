"""Feed a model on the GPU from a Dataset that builds its samples on the GPU, with two workers."""

import torch
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.full((4,), float(index), device="cuda")


def main():
    device = torch.device("cuda")
    model = torch.nn.Linear(4, 1).to(device)  # CUDA is initialised in the main process
    loader = DataLoader(Features(), batch_size=4, num_workers=2)
    for batch in loader:
        print(model(batch).sum().item())


if __name__ == "__main__":
    main()
