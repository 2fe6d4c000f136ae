"""DLP013: a Dataset class, or a function handed to a DataLoader, defined under the main guard."""

import torch
from torch.utils.data import DataLoader, Dataset


class TopLevel(Dataset):  # near miss: at the top level, workers find it
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index)


if __name__ == "__main__":

    class Squares(Dataset):  # DLP013
        def __len__(self):
            return 8

        def __getitem__(self, index):
            return torch.tensor(index * index)

    def stack(batch):  # DLP013
        return torch.stack(batch)

    def report(epoch):  # near miss: not handed to a DataLoader
        print(epoch)

    if torch.cuda.is_available():

        def seed_worker(worker_id):  # DLP013
            torch.manual_seed(worker_id)

    else:
        seed_worker = None

    loader = DataLoader(Squares(), batch_size=4, num_workers=2, collate_fn=stack, worker_init_fn=seed_worker)
    report(sum(int(batch.sum()) for batch in loader))
