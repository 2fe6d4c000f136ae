"""A segmentation Dataset keeps `root.iterdir()` of its masks folder and reads it at first use.
Up to Python 3.12 `Path.iterdir()` is a generator function, and spawn and forkserver cannot pickle
the generator (`TypeError: cannot pickle 'generator' object`); from 3.13 it lists the folder at
once and returns a `map`, which pickles. So the same script fails under spawn with Python 3.12
and runs with 3.13: `check` must name the pitfall for the versions where it shows.

Source: CPython's pathlib, read here: 3.11.7's `pathlib.py` (`for name in os.listdir(self):
yield self._make_child_relpath(name)`), 3.13.2's `pathlib/_local.py` (the Windows CPython of
`nox -s windows-env`: `paths = [entry.path for entry in scandir_it]` ... `return
map(self._from_parsed_string, paths)`); the shape of a Dataset that keeps an iterator made in
`__init__` and reads it lazily.

pitfalls: 02
risks:
"""

import tempfile
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def make_folder(root, count=12):
    for name in ("images", "masks"):
        (root / name).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for index in range(count):
        image = rng.random((8, 8), dtype=np.float32)
        np.save(root / "images" / f"{index:03d}.npy", image)
        np.save(root / "masks" / f"{index:03d}.npy", (image > 0.5).astype(np.uint8))


class SegmentationPairs(Dataset):
    def __init__(self, root):
        self.images = sorted((root / "images").glob("*.npy"))
        self.masks = (root / "masks").iterdir()  # read once, at first use
        self._by_name = None

    def __len__(self):
        return len(self.images)

    def mask_for(self, image_path):
        if self._by_name is None:
            self._by_name = {path.stem: path for path in self.masks}
        return self._by_name[image_path.stem]

    def __getitem__(self, index):
        image = np.load(self.images[index])
        mask = np.load(self.mask_for(self.images[index]))
        return torch.from_numpy(image)[None], torch.from_numpy(mask).long()


def main():
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        make_folder(root)
        loader = DataLoader(SegmentationPairs(root), batch_size=4, shuffle=True, num_workers=2)
        pixels = sum(int(masks.sum()) for _, masks in loader)
        print(f"{pixels} mask pixels")


if __name__ == "__main__":
    main()
