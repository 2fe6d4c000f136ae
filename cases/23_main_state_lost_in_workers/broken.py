"""Samples scaled by the factor that main() reads from the config; two workers."""

import torch
from torch.utils.data import DataLoader, Dataset

SCALE = 1.0  # replaced by the config's value in main()


class Samples(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.full((2,), float(index)) * SCALE


def load_config():
    return {"scale": 0.5}  # read from a YAML file in a real project


def main():
    global SCALE
    SCALE = load_config()["scale"]
    loader = DataLoader(Samples(), batch_size=4, num_workers=2)
    largest = max(float(batch.max()) for batch in loader)
    print(f"the largest value is {largest}: sample 7 scaled by {largest / 7}, the config says {SCALE}")
    assert largest == 7 * SCALE, f"the samples were scaled by {largest / 7}, not by the config's {SCALE}"


if __name__ == "__main__":
    main()
