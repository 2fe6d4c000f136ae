"""Heavy CPU transforms in two DataLoader workers, each given two intra-op threads.

The main process has already run a parallel torch operation (say, a warm-up of the model).
PyTorch sets each worker to one thread; `worker_init_fn` restores two, for faster transforms.
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Transformed(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        image = torch.full((300, 300), float(index))
        return (image @ image).mean()  # stands for a CPU-heavy transform


def use_two_threads(worker_id):
    torch.set_num_threads(2)


def main():
    torch.set_num_threads(2)
    warm_up = torch.rand(1000, 1000)
    warm_up @ warm_up  # runs on two OpenMP threads in the main process
    loader = DataLoader(Transformed(), batch_size=4, num_workers=2, worker_init_fn=use_two_threads)
    for batch in loader:
        print(batch.tolist())


if __name__ == "__main__":
    main()
