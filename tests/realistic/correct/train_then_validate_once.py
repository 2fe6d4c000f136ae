"""A tutorial's shape: one pass over a training loader, then one over a validation loader, both
with workers and without persistent workers. No loader is iterated twice, so no start-up is paid
"every epoch" (case 13): the validation loader's first batch is its own first epoch, not a later
epoch of the training loader.

After PyTorch's tutorial "Optimizing Model Parameters"
(https://pytorch.org/tutorials/beginner/basics/optimization_tutorial.html): a pass over
`train_dataloader`, then one over `test_dataloader`, in the epoch loop (its `train_loop` and
`test_loop` written inline); here for one epoch, with two workers, short enough that `check`
sees both loaders.

pitfalls:
risks:
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    training_data = TensorDataset(torch.randn(384, 16), torch.randint(0, 4, (384,)))
    test_data = TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,)))
    train_dataloader = DataLoader(training_data, batch_size=64, shuffle=True, num_workers=2)
    test_dataloader = DataLoader(test_data, batch_size=64, num_workers=2)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    epochs = 1
    for t in range(epochs):
        model.train()
        for features, labels in train_dataloader:
            loss = loss_fn(model(features), labels)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        model.eval()
        correct = 0
        with torch.no_grad():
            for features, labels in test_dataloader:
                correct += int((model(features).argmax(1) == labels).sum())
        print(f"epoch {t + 1}: {correct}/{len(test_data)} correct")


if __name__ == "__main__":
    main()
