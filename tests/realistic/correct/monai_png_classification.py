"""A MONAI 2-D classification training script as the MedNIST tutorial writes it: image files
listed in dictionaries, `LoadImaged` reading each one in the workers (PIL under MONAI's reader),
random rotations, flips and zooms, MONAI's `DataLoader` with two workers, a small `DenseNet`
trained for two epochs. Correct under every start method: the Dataset holds a list of 12,000
dictionaries of a file name and a label (240 files, each listed 50 times), about 5 MB of Python
objects, which copy-on-read cannot make into more than that; what a worker allocates as its random
transforms first fire (a step of about 8 MB, 8 s after the worker's second batch in one run here
beside two CPU-bound processes) is no growth that goes on. It needs monai and Pillow wherever it runs.

Source: Project-MONAI/tutorials `2d_classification/mednist_tutorial.ipynb` (`LoadImage`,
`EnsureChannelFirst`, `ScaleIntensity`, `RandRotate`, `RandFlip`, `RandZoom`, a `DenseNet121`
with `spatial_dims=2`), written with the dictionary transforms, small PNG files made by the
script in its working directory instead of the MedNIST download, and a smaller DenseNet (two
CPUs train it in seconds).

pitfalls:
risks:
"""

import os

import numpy as np
import torch
from monai.data import DataLoader, Dataset
from monai.networks.nets import DenseNet
from monai.transforms import (
    Compose,
    EnsureChannelFirstd,
    LoadImaged,
    RandFlipd,
    RandRotated,
    RandZoomd,
    ScaleIntensityd,
)
from PIL import Image

CLASSES = ["AbdomenCT", "BreastMRI", "ChestCT", "CXR", "Hand", "HeadCT"]


def make_images(folder="mednist", per_class=40, size=32):
    rng = np.random.default_rng(0)
    files = []
    for label, name in enumerate(CLASSES):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        for index in range(per_class):
            path = os.path.join(folder, name, f"{index:06d}.png")
            if not os.path.exists(path):
                Image.fromarray(rng.integers(0, 255, (size, size), dtype=np.uint8)).save(path)
            files.append({"img": path, "label": label})
    return files


def oversampled(files, times=50):
    """Each file listed `times` times, as a small set is repeated to make an epoch long enough."""
    return [dict(item) for _ in range(times) for item in files]


TRAIN_TRANSFORMS = Compose(
    [
        LoadImaged(keys="img", image_only=True),
        EnsureChannelFirstd(keys="img"),
        ScaleIntensityd(keys="img"),
        RandRotated(keys="img", range_x=np.pi / 12, prob=0.5, keep_size=True),
        RandFlipd(keys="img", spatial_axis=0, prob=0.5),
        RandZoomd(keys="img", min_zoom=0.9, max_zoom=1.1, prob=0.5),
    ]
)


def main():
    loader = DataLoader(
        Dataset(oversampled(make_images()), TRAIN_TRANSFORMS), batch_size=16, shuffle=True, num_workers=2
    )
    model = DenseNet(
        spatial_dims=2,
        in_channels=1,
        out_channels=len(CLASSES),
        init_features=8,
        growth_rate=8,
        block_config=(2, 2),
    )
    optimizer = torch.optim.Adam(model.parameters(), 1e-5)
    loss_function = torch.nn.CrossEntropyLoss()
    for epoch in range(2):
        for step, batch in enumerate(loader):
            optimizer.zero_grad()
            loss = loss_function(model(batch["img"]), batch["label"])
            loss.backward()
            optimizer.step()
            print(f"epoch {epoch + 1} step {step}: loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
