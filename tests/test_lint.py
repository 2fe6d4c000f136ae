"""The static rules: each with a true positive and a near miss that must not be flagged."""

from __future__ import annotations

import textwrap

import pytest

from harness.lint import RULES, lint_source

HEADER = "import cv2, random, sqlite3, torch, numpy as np\nfrom torch.utils.data import DataLoader, Dataset, IterableDataset\n"

CASES = {
    "DLP001": (
        "loader = DataLoader(ds, num_workers=2)\nfor batch in loader:\n    pass\n",
        "def main():\n    loader = DataLoader(ds, num_workers=2)\n\nif __name__ == '__main__':\n    main()\n",
    ),
    "DLP002": (
        "def main():\n    DataLoader(ds, num_workers=2, collate_fn=lambda b: b)\n",
        "def collate(b):\n    return b\n\ndef main():\n    DataLoader(ds, num_workers=2, collate_fn=collate)\n",
    ),
    "DLP003": (
        "class D(Dataset):\n    def __init__(self, path):\n        self.db = sqlite3.connect(path)\n",
        "class D(Dataset):\n    def __init__(self, path):\n        self.path = path\n        with open(path) as f:\n            self.n = len(f.read())\n",
    ),
    "DLP004": (
        "class D(Dataset):\n    def __init__(self):\n        self.rng = np.random.default_rng(0)\n",
        "class D(Dataset):\n    def __getitem__(self, i):\n        return np.random.default_rng(i).random()\n",
    ),
    "DLP005": (
        "class S(IterableDataset):\n    def __iter__(self):\n        return iter(range(10))\n",
        "class S(IterableDataset):\n    def __iter__(self):\n        info = torch.utils.data.get_worker_info()\n        return iter(range(info.id, 10, info.num_workers))\n",
    ),
    "DLP006": (
        "class D(Dataset):\n    def __getitem__(self, i):\n        return torch.ones(3).cuda()\n",
        "class D(Dataset):\n    def __getitem__(self, i):\n        return torch.ones(3).to('cpu')\n\ndef train(batch):\n    return batch.cuda()\n",
    ),
    "DLP007": (
        "class D(Dataset):\n    def __init__(self, root):\n        self.files = sorted(glob.glob(root + '/*.jpg'))\n",
        "class D(Dataset):\n    def __init__(self, root):\n        self.files = np.array(sorted(glob.glob(root + '/*.jpg')))\n        self.mean = [0.5, 0.5, 0.5]\n",
    ),
    "DLP008": (
        "import os\nos.makedirs('runs/x')\n\ndef main():\n    DataLoader(ds, num_workers=2)\n",
        "import os\n\ndef main():\n    os.makedirs('runs/x')\n    DataLoader(ds, num_workers=2)\n",
    ),
    "DLP009": (
        "def init(worker_id):\n    torch.set_num_threads(4)\n\ndef main():\n    DataLoader(ds, num_workers=2, worker_init_fn=init)\n",
        "def init(worker_id):\n    torch.set_num_threads(1)\n\ndef main():\n    torch.set_num_threads(8)\n    DataLoader(ds, num_workers=2, worker_init_fn=init)\n",
    ),
    "DLP010": (
        "def worker_init(worker_id):\n    cv2.setNumThreads(1)\n",
        "def worker_init(worker_id):\n    cv2.setNumThreads(0)\n\ndef main():\n    cv2.setNumThreads(4)\n",
    ),
    "DLP011": (
        "def main():\n    loader = DataLoader(ds, num_workers=4)\n    for epoch in range(10):\n        for batch in loader:\n            pass\n",
        "def main():\n    loader = DataLoader(ds, num_workers=4, persistent_workers=True)\n    for epoch in range(10):\n        for batch in loader:\n            pass\n",
    ),
    "DLP012": (
        "def main():\n    loader = DataLoader(ds, num_workers=2)\n    kept = []\n    for batch in loader:\n        kept.append(batch)\n",
        "def main():\n    loader = DataLoader(ds, num_workers=2)\n    kept = []\n    for batch in loader:\n        kept.append(batch.clone())\n    kept2 = [b.numpy().copy() for b in loader]\n",
    ),
}


def codes(source: str, notebook: bool = False) -> list[str]:
    return [f.code for f in lint_source(HEADER + textwrap.dedent(source), "t.py", notebook)]


def test_every_rule_has_a_test():
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_true_positive_is_flagged(code):
    assert code in codes(CASES[code][0])


@pytest.mark.parametrize("code", sorted(CASES))
def test_near_miss_is_not_flagged(code):
    assert codes(CASES[code][1]) == []


def test_notebook_code_is_not_told_to_use_a_main_guard():
    assert codes(CASES["DLP001"][0], notebook=True) == []


def test_output_is_ruff_style_with_the_case():
    finding = lint_source(HEADER + CASES["DLP002"][0], "train.py")[0]
    assert str(finding) == (
        "train.py:4:46: DLP002 `collate_fn` is a lambda or a nested function: spawn cannot pickle it "
        "(see cases/03_lambda_collate)"
    )
