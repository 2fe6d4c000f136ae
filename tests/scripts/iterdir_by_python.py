"""A Dataset that keeps `Path.iterdir()` of its folder, read by two workers: whether it reaches
them depends on the Python version, not the platform. Up to 3.12 `iterdir()` is a generator
function (the generator does not pickle: spawn and forkserver fail to start a worker); from 3.13
it lists the folder at once and returns a `map`, which pickles. It prints its Python version and
what `iterdir()` returned first. Case 02's README quotes it (python -m harness experiment
iterdir_by_python); tests/realistic/broken/dataset_keeps_iterdir.py is the script as users write it.
"""

import platform
import tempfile
from pathlib import Path

from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, root):
        self.entries = root.iterdir()  # read once, at first use
        self.names = None

    def __len__(self):
        return 8

    def __getitem__(self, index):
        if self.names is None:
            self.names = sorted(path.name for path in self.entries)
        return self.names[index % len(self.names)]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for index in range(4):
            (root / f"{index}.txt").write_text(str(index))
        print(f"Python {platform.python_version()}: Path.iterdir() returns {type(root.iterdir()).__name__}")
        names = [name for batch in DataLoader(Files(root), batch_size=4, num_workers=2) for name in batch]
        print(f"{len(names)} names read by the workers")
