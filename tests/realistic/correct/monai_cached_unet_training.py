"""A MONAI segmentation training script as the 3-D tutorials write it: the volumes cached once by
`CacheDataset` (the deterministic transforms applied and kept), random crops and flips applied
per sample in the workers, MONAI's `DataLoader` with four workers and `list_data_collate`, a
`UNet` trained for an epoch with a Dice loss. Correct under every start method: the cache is a
short list of dictionaries whose volumes live in numpy arrays and tensors (no copy-on-read worth
the name); the workers' memory grows in their first batches (MONAI's transforms, torch's
allocator) and then settles. It needs monai (and numpy) wherever it runs.

Source: Project-MONAI/tutorials `3d_segmentation/spleen_segmentation_3d.ipynb` (a `CacheDataset`
with `cache_rate=1.0`, `RandCropByPosNegLabeld(num_samples=4)`, `DataLoader(..., num_workers=4,
collate_fn=list_data_collate)`, `UNet(spatial_dims=3, ...)`, `DiceLoss(to_onehot_y=True,
softmax=True)`), with small volumes made in memory instead of NIfTI files.

pitfalls:
risks:
"""

import numpy as np
import torch
from monai.data import CacheDataset, DataLoader, list_data_collate
from monai.losses import DiceLoss
from monai.networks.nets import UNet
from monai.transforms import (
    Compose,
    EnsureChannelFirstd,
    EnsureTyped,
    RandCropByPosNegLabeld,
    RandFlipd,
    ScaleIntensityRanged,
)


def volumes(count=24, shape=(48, 48, 32), seed=0):
    rng = np.random.default_rng(seed)
    files = []
    for _ in range(count):
        image = rng.normal(0, 200, shape).astype(np.float32)
        label = (rng.random(shape) > 0.9).astype(np.float32)
        files.append({"image": image, "label": label})
    return files


def train_transforms():
    return Compose(
        [
            EnsureChannelFirstd(keys=["image", "label"], channel_dim="no_channel"),
            ScaleIntensityRanged(keys=["image"], a_min=-57, a_max=164, b_min=0.0, b_max=1.0, clip=True),
            EnsureTyped(keys=["image", "label"]),
            RandCropByPosNegLabeld(
                keys=["image", "label"], label_key="label", spatial_size=(32, 32, 16),
                pos=1, neg=1, num_samples=4, image_key="image", image_threshold=0,
            ),
            RandFlipd(keys=["image", "label"], spatial_axis=[0], prob=0.1),
        ]
    )  # fmt: skip


def main():
    dataset = CacheDataset(data=volumes(), transform=train_transforms(), cache_rate=1.0, num_workers=2)
    loader = DataLoader(dataset, batch_size=2, shuffle=True, num_workers=4, collate_fn=list_data_collate)
    model = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(8, 16, 32), strides=(2, 2))
    loss_function = DiceLoss(to_onehot_y=True, softmax=True)
    optimizer = torch.optim.Adam(model.parameters(), 1e-4)
    for epoch in range(2):
        model.train()
        epoch_loss = 0.0
        for batch in loader:
            optimizer.zero_grad()
            loss = loss_function(model(batch["image"]), batch["label"])
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch + 1} average loss: {epoch_loss / len(loader):.4f}")


if __name__ == "__main__":
    main()
