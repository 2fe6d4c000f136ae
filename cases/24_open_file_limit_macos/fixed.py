"""A model trained on four tasks: one training and one validation loader, each serving every
task, task after task, with persistent workers and eight of them."""

import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset

TASKS = ("pose", "depth", "segmentation", "detection")
WORKERS = 8  # os.cpu_count() on an 8-core laptop


class TaskSamples(Dataset):
    def __init__(self, task, split):
        self.task, self.split = task, split

    def __len__(self):
        return 32 if self.split == "train" else 16

    def __getitem__(self, index):
        return torch.full((16,), float(index)), TASKS.index(self.task)


def task_batches(tasks, batch_size):
    """Batches of one task each, task after task: the order a loader per task gave."""
    batches, start = [], 0
    for end in tasks.cumulative_sizes:
        batches += [list(range(i, min(i + batch_size, end))) for i in range(start, end, batch_size)]
        start = end
    return batches


def loader(split):
    tasks = ConcatDataset([TaskSamples(task, split) for task in TASKS])
    return DataLoader(
        tasks,
        batch_sampler=task_batches(tasks, batch_size=16),
        num_workers=WORKERS,
        persistent_workers=True,
    )


def main():
    model = torch.nn.Linear(16, len(TASKS))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    train, validation = loader("train"), loader("validation")
    for epoch in range(2):
        for features, labels in train:
            loss = torch.nn.functional.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            right = sum((model(features).argmax(1) == labels).sum().item() for features, labels in validation)
        print(f"epoch {epoch}: {right} of {16 * len(TASKS)} validation samples right")


if __name__ == "__main__":
    main()
