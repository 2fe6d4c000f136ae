"""A config dict at module level, filled in main() from the command line and read in __getitem__
to normalise the images: forked workers see main()'s values, spawned ones the defaults.

pitfalls: 23
risks:
check-options: --profile linux,linux-3.14,windows-emulated
"""

import argparse

import torch
from torch.utils.data import DataLoader, Dataset

CFG = {"mean": 0.0, "std": 1.0, "image_size": 16}


class ImageDataset(Dataset):
    def __init__(self, count):
        generator = torch.Generator().manual_seed(0)
        self.images = torch.rand(count, 3, 16, 16, generator=generator) * 255
        self.labels = torch.randint(0, 10, (count,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        image = (self.images[index] / 255 - CFG["mean"]) / CFG["std"]
        return image[:, : CFG["image_size"], : CFG["image_size"]], self.labels[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mean", type=float, default=0.45)
    parser.add_argument("--std", type=float, default=0.22)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    CFG.update(mean=args.mean, std=args.std, image_size=12)

    loader = DataLoader(ImageDataset(96), batch_size=16, shuffle=True, num_workers=args.workers)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(10))
    optimizer = None
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.01)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
