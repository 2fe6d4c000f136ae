"""A text classifier's data pipeline as a CI test runs it: a vocabulary, a padding `collate_fn`,
four workers and `timeout=1` so that a stuck worker fails the job instead of hanging it. Under
spawn (Windows, macOS) the first batch waits for a worker that is still importing torch:
`RuntimeError: DataLoader timed out after 1 seconds`.

Source: written for this set after pytorch/text issue 1076 (a torchtext test's DataLoader with a
short `timeout` failing on Windows CI with `DataLoader timed out after 5 seconds`); not copied from
a project.

pitfalls: 20
risks:
"""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

SENTENCES = [
    ("the film was a delight from start to end", 1),
    ("a dull plot and wooden acting", 0),
    ("I would watch it again tomorrow", 1),
    ("two hours I will not get back", 0),
] * 64


class Reviews(Dataset):
    def __init__(self, rows):
        self.rows = rows
        words = sorted({word for text, _ in rows for word in text.split()})
        self.vocab = {word: index + 1 for index, word in enumerate(words)}  # 0 pads

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        text, label = self.rows[index]
        return torch.tensor([self.vocab[word] for word in text.split()]), label


def pad_batch(batch):
    tokens, labels = zip(*batch, strict=True)
    return pad_sequence(tokens, batch_first=True), torch.tensor(labels)


def test_loader_yields_padded_batches():
    loader = DataLoader(Reviews(SENTENCES), batch_size=16, num_workers=4, collate_fn=pad_batch, timeout=1)
    for tokens, labels in loader:
        assert tokens.shape[0] == labels.shape[0]


if __name__ == "__main__":
    test_loader_yields_padded_batches()
    print("ok")
