"""Tiny models for the driver tests (module level, so the frontend process
can unpickle them). ``build`` is what ``tessel compile drivermodels.py``
calls."""

import torch
import torch.nn.functional as F

RTOL = 1e-5
ATOL = 1e-5


class TinyMlp(torch.nn.Module):
    # Defined here, not taken from the zoo: the report tests look for this
    # file's lines in the per-layer table.
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Atan2(torch.nn.Module):
    """An elementwise op the vector unit has no lowering for."""

    def forward(self, x):
        return torch.atan2(x, x + 1.0)


class DataDependent(torch.nn.Module):
    """Branches on a tensor's value: torch.export cannot trace it."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def build():
    torch.manual_seed(0)
    return TinyMlp(), (torch.randn(4, 16),)
