"""A MONAI pipeline whose `Compose` is built in a function and ends in a lambda (a `Lambdad` that
casts the label), the Dataset holding it: spawn and forkserver cannot pickle the local lambda to
send the Dataset to a worker (`Can't pickle local object 'get_transforms.<locals>.<lambda>'`;
Python 3.13 words it `Can't get local object`). Fork runs it.

Source: MONAI 1.6.1's own example for the transform (monai/transforms/utility/dictionary.py,
`Lambdad`'s docstring: `lambd = Lambdad(keys='label', func=lambda x: x[:4, :, :])`), put in a
`Compose` built by a `get_transforms()` function, as training scripts do to switch pipelines.

pitfalls: 03
risks:
"""

import numpy as np
import torch
from monai.data import DataLoader, Dataset
from monai.transforms import Compose, EnsureChannelFirstd, Lambdad, RandFlipd, ScaleIntensityd


def get_transforms():
    return Compose(
        [
            EnsureChannelFirstd(keys=["img"], channel_dim="no_channel"),
            ScaleIntensityd(keys="img"),
            RandFlipd(keys=["img"], prob=0.5, spatial_axis=0),
            Lambdad(keys="label", func=lambda label: torch.as_tensor(label, dtype=torch.long)),
        ]
    )


def main():
    rng = np.random.default_rng(0)
    files = [{"img": rng.random((16, 16), dtype=np.float32), "label": index % 2} for index in range(64)]
    loader = DataLoader(Dataset(data=files, transform=get_transforms()), batch_size=4, num_workers=2)
    labels = torch.cat([batch["label"] for batch in loader])
    print(f"{int(labels.sum())} positive labels of {len(labels)}")


if __name__ == "__main__":
    main()
