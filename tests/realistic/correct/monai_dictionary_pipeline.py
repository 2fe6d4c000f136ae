"""A MONAI training loop as the library's tutorials write it: a list of dictionaries, a `Compose`
of dictionary transforms (random ones among them) defined at the top of the module, MONAI's own
`Dataset` and `DataLoader` (which passes MONAI's `worker_init_fn`, reseeding the transforms of
each worker), two workers, a small network trained for an epoch. Correct under every start
method; it needs the monai package (and numpy) wherever it runs.

Source: the dictionary-based examples of Project-MONAI/tutorials (`3d_segmentation/torch/
unet_training_dict.py`: a list of `{"img": …, "seg": …}`, a `Compose` of dictionary transforms
with random ones, `monai.data.Dataset(data=…, transform=…)` and a `DataLoader` with workers),
with small 2-D arrays made in memory instead of NIfTI files.

pitfalls:
risks:
"""

import numpy as np
import torch
from monai.data import DataLoader, Dataset
from monai.transforms import Compose, EnsureChannelFirstd, RandFlipd, RandRotate90d, ScaleIntensityd

TRAIN_TRANSFORMS = Compose(
    [
        EnsureChannelFirstd(keys=["img", "seg"], channel_dim="no_channel"),
        ScaleIntensityd(keys="img"),
        RandFlipd(keys=["img", "seg"], prob=0.5, spatial_axis=0),
        RandRotate90d(keys=["img", "seg"], prob=0.5, spatial_axes=(0, 1)),
    ]
)


def make_files(count=96, size=16):
    rng = np.random.default_rng(0)
    files = []
    for _ in range(count):
        image = rng.random((size, size), dtype=np.float32)
        files.append({"img": image, "seg": (image > 0.5).astype(np.float32)})
    return files


def main():
    dataset = Dataset(data=make_files(), transform=TRAIN_TRANSFORMS)
    loader = DataLoader(dataset, batch_size=4, shuffle=True, num_workers=2)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 1, 1)
    )
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    total = 0.0
    for batch in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(torch.as_tensor(batch["img"])), torch.as_tensor(batch["seg"]))
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"loss {total / len(loader):.4f}")


if __name__ == "__main__":
    main()
