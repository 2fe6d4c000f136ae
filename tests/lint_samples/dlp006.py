"""DLP006: CUDA work inside a Dataset method (the first such call in each method), and CUDA tensors
made in __init__ and kept on the Dataset."""

import torch
from torch.utils.data import Dataset


class OnGpu(Dataset):
    def __getitem__(self, index):
        return torch.ones(3).cuda()  # DLP006

    def augment(self, x):
        return x.to("cuda:0")  # DLP006

    def noise(self):
        return torch.randn(3, device="cuda")  # DLP006


class KeptOnGpu(Dataset):
    def __init__(self, features):
        self.features = torch.as_tensor(features).cuda()  # DLP006
        self.labels = torch.zeros(len(features), device="cuda")  # DLP006
        self.device = "cuda"  # near miss: a name, not a tensor
        if torch.cuda.is_available():  # near miss: a test, not kept on self
            print("GPU")

    def __getitem__(self, index):
        return self.features[index], self.labels[index]


class OnCpu(Dataset):
    def __getitem__(self, index):
        return torch.ones(3).to("cpu")  # near miss: CPU


def train(batch):
    return batch.cuda()  # near miss: in the training loop, not in the Dataset
