"""A curriculum: the Dataset's difficulty follows the epoch, sent with each index; persistent workers."""

from torch.utils.data import DataLoader, Dataset, Sampler


class Curriculum(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, key):
        epoch, _index = key  # the epoch travels with the index, from the sampler in the main process
        return epoch  # stands for a sample made at this epoch's difficulty


class EpochSampler(Sampler):
    """Yields (epoch, index): the sampler runs in the main process, so set_epoch reaches it."""

    def __init__(self, size):
        self.size = size
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.size

    def __iter__(self):
        return ((self.epoch, index) for index in range(self.size))


def main():
    dataset = Curriculum()
    sampler = EpochSampler(len(dataset))
    loader = DataLoader(dataset, batch_size=4, num_workers=2, persistent_workers=True, sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        seen = sorted({value for batch in loader for value in batch.tolist()})
        print(f"epoch {epoch}: samples made for epochs {seen}")
        assert seen == [epoch], (
            f"epoch {epoch} got samples made for epoch(s) {seen}: the workers never saw set_epoch({epoch})"
        )


if __name__ == "__main__":
    main()
