"""DLP006: CUDA work inside a Dataset method (the first such call in each method)."""

import torch
from torch.utils.data import Dataset


class OnGpu(Dataset):
    def __getitem__(self, index):
        return torch.ones(3).cuda()  # DLP006

    def augment(self, x):
        return x.to("cuda:0")  # DLP006

    def noise(self):
        return torch.randn(3, device="cuda")  # DLP006


class OnCpu(Dataset):
    def __getitem__(self, index):
        return torch.ones(3).to("cpu")  # near miss: CPU


def train(batch):
    return batch.cuda()  # near miss: in the training loop, not in the Dataset
