"""Modules the frontend must refuse, each with a clear message."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DataDependentBranch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class Sorts(nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=-1).values


class ComplexFFT(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


class CountsPositives(nn.Module):
    def forward(self, x):
        return torch.nonzero(x > 0).float().sum()   # the line the error names


class SumsPositives(nn.Module):
    def forward(self, x):
        return torch.masked_select(x, x > 0).sum()


class SumsDistinct(nn.Module):
    def forward(self, x):
        return torch.unique(x).sum()


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def index_cross_entropy(logits, labels):
    return F.cross_entropy(logits, labels)


class Doubles(nn.Module):
    """Fine for torch-mlir; a float8 input is outside Tessel's dtypes."""

    def forward(self, x):
        return x * 2
