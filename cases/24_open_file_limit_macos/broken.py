"""A model trained on four tasks: a training and a validation loader per task, each with
persistent workers (their start-up paid once, not every epoch) and eight of them, as many as an
8-core laptop has cores."""

import torch
from torch.utils.data import DataLoader, Dataset

TASKS = ("pose", "depth", "segmentation", "detection")
WORKERS = 8  # os.cpu_count() on an 8-core laptop


class TaskSamples(Dataset):
    def __init__(self, task, split):
        self.task, self.split = task, split

    def __len__(self):
        return 32 if self.split == "train" else 16

    def __getitem__(self, index):
        return torch.full((16,), float(index)), TASKS.index(self.task)


def loaders(split):
    return {
        task: DataLoader(
            TaskSamples(task, split), batch_size=16, num_workers=WORKERS, persistent_workers=True
        )
        for task in TASKS
    }


def main():
    model = torch.nn.Linear(16, len(TASKS))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    train, validation = loaders("train"), loaders("validation")
    for epoch in range(2):
        for batches in train.values():
            for features, labels in batches:
                loss = torch.nn.functional.cross_entropy(model(features), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        with torch.no_grad():
            right = sum(
                (model(features).argmax(1) == labels).sum().item()
                for batches in validation.values()
                for features, labels in batches
            )
        print(f"epoch {epoch}: {right} of {16 * len(TASKS)} validation samples right")


if __name__ == "__main__":
    main()
