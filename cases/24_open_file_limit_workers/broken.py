"""A multilingual classifier trained on every language at each step: one DataLoader a language,
four workers each, and one batch of every language per step. The workers stay alive between
epochs (persistent_workers=True), so each epoch after the first starts at once."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

LANGUAGES = ["ar", "bg", "de", "el", "en", "es", "fr", "hi", "ru", "sw", "th", "tr", "ur", "vi", "zh"]


class Sentences(Dataset):
    """Sentences of one language, as 16 features each, with a label in 3 classes."""

    def __init__(self, seed):
        generator = torch.Generator().manual_seed(seed)
        self.features = torch.randn(256, 16, generator=generator)
        self.labels = torch.randint(0, 3, (256,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.features[index], self.labels[index]


def main():
    loaders = [
        DataLoader(Sentences(seed), batch_size=32, shuffle=True, num_workers=4, persistent_workers=True)
        for seed, _ in enumerate(LANGUAGES)
    ]
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for batches in zip(*loaders, strict=True):
            loss = sum(nn.functional.cross_entropy(model(features), labels) for features, labels in batches)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item() / len(LANGUAGES):.3f}")


if __name__ == "__main__":
    main()
