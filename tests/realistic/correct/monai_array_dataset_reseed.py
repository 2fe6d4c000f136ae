"""A medical-imaging library's dataset: its random transforms hold a numpy RandomState made in the
main process (`Compose` seeds each one there: the same state in every worker at start), but the
dataset reseeds them for every item from a seed it draws, and the library's `worker_init_fn`
reseeds the dataset per worker from `get_worker_info().seed`. The values each worker draws
differ, per worker and per epoch; only the state the transforms start from is shared, and it is
replaced before anything is drawn from it.

The shape of MONAI 1.6.1 (read here from the wheel): `Randomizable.R = np.random.RandomState()`
and `set_random_state(seed)` (monai/transforms/transform.py); `ArrayDataset.__getitem__` calls
`self.randomize()` (`self._seed = int(self.R.randint(MAX_SEED, dtype="uint32"))`) and then
`transform.set_random_state(seed=self._seed)` (monai/data/dataset.py); `worker_init_fn` calls
`set_rnd(worker_info.dataset, seed=worker_info.seed)` (monai/data/utils.py); `Compose.__init__`
calls `self.set_random_state(seed=get_seed())`, which gives each transform its own
`set_random_state(seed=int(self.R.randint(MAX_SEED, dtype="uint32")))` (monai/transforms/
compose.py). Written out without MONAI.

pitfalls:
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

MAX_SEED = 2**32


class Randomizable:
    R = np.random.RandomState()

    def set_random_state(self, seed):
        self.R = np.random.RandomState(seed % MAX_SEED)
        return self


class RandGaussianNoise(Randomizable):
    def __call__(self, image):
        return image + torch.from_numpy(self.R.normal(0.0, 0.1, size=image.shape)).float()


class Compose(Randomizable):
    def __init__(self, transforms):
        self.transforms = transforms
        self.set_random_state(seed=0)

    def set_random_state(self, seed):
        super().set_random_state(seed)
        for transform in self.transforms:
            transform.set_random_state(seed=int(self.R.randint(MAX_SEED, dtype="uint32")))
        return self

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image


class ArrayDataset(Randomizable, Dataset):
    def __init__(self, images, transform):
        self.images, self.transform = images, transform
        self.set_random_state(seed=0)
        self._seed = 0

    def __len__(self):
        return len(self.images)

    def randomize(self):
        self._seed = int(self.R.randint(MAX_SEED, dtype="uint32"))

    def __getitem__(self, index):
        self.randomize()
        self.transform.set_random_state(seed=self._seed)
        return self.transform(self.images[index])


def worker_init_fn(worker_id):
    worker_info = get_worker_info()
    worker_info.dataset.set_random_state(seed=worker_info.seed)


if __name__ == "__main__":
    dataset = ArrayDataset(torch.zeros(64, 2, 8, 8), Compose([RandGaussianNoise()]))
    loader = DataLoader(dataset, batch_size=8, num_workers=2, worker_init_fn=worker_init_fn)
    for epoch in range(2):
        print(f"epoch {epoch}: noise {torch.cat(list(loader))[:, 0, 0, 0][:4].tolist()}")
