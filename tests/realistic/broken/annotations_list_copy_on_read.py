"""A detection-style Dataset that parses its annotations once, in `__init__`, into a Python list
of dictionaries (a file name, a box, a category per object, as a COCO annotation file gives
them), and reads one in `__getitem__`, shuffled, with four workers. Under fork each worker, only
reading, writes the reference counts of the objects it touches: the pages it shares with the
parent are copied one by one, and its memory climbs toward a copy of the whole list (case 06).
Under spawn and forkserver each worker gets its own copy at its start, which does not grow.

The shape of the "DataLoader workers' memory keeps growing" reports (pytorch/pytorch#13246: a
list of Python objects read by workers), with annotations made in memory instead of a JSON file.

pitfalls: 06
risks:
"""

import random

import torch
from torch.utils.data import DataLoader, Dataset


def load_annotations(count=400_000, seed=0):
    rng = random.Random(seed)
    return [
        {
            "file_name": f"train2017/{index:012d}.jpg",
            "bbox": [rng.uniform(0, 600), rng.uniform(0, 400), rng.uniform(8, 200), rng.uniform(8, 200)],
            "category_id": rng.randrange(1, 91),
            "iscrowd": 0,
        }
        for index in range(count)
    ]


class Boxes(Dataset):
    def __init__(self):
        self.annotations = load_annotations()

    def __len__(self):
        return len(self.annotations)

    def __getitem__(self, index):
        annotation = self.annotations[index]
        x, y, w, h = annotation["bbox"]
        return torch.tensor([x / 640, y / 480, w / 640, h / 480]), annotation["category_id"]


def main():
    loader = DataLoader(Boxes(), batch_size=256, shuffle=True, num_workers=4)
    model = torch.nn.Linear(4, 91)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (boxes, labels) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(boxes), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 200 == 0:
            print(f"step {step}: loss {loss.item():.3f}", flush=True)


if __name__ == "__main__":
    main()
