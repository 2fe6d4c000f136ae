"""A curriculum: the Dataset's difficulty follows the epoch, set by the training loop; persistent workers."""

from torch.utils.data import DataLoader, Dataset


class Curriculum(Dataset):
    def __init__(self):
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch  # harder samples as training goes on

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.epoch  # stands for a sample made at this epoch's difficulty


def main():
    dataset = Curriculum()
    loader = DataLoader(dataset, batch_size=4, num_workers=2, persistent_workers=True)
    for epoch in range(3):
        dataset.set_epoch(epoch)
        seen = sorted({value for batch in loader for value in batch.tolist()})
        print(f"epoch {epoch}: samples made for epochs {seen}")
        assert seen == [epoch], (
            f"epoch {epoch} got samples made for epoch(s) {seen}: the workers never saw set_epoch({epoch})"
        )


if __name__ == "__main__":
    main()
