"""Small PyTorch layers for end-to-end compiler tests (importable by the
frontend process, which receives models pickled)."""

import torch


class Softmax(torch.nn.Module):
    """Row softmax: a max reduction, a broadcast subtract and exp, a sum
    reduction, a broadcast divide."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class GeluMlp(torch.nn.Module):
    """Linear, GELU (erf), linear: the BERT feed-forward block's ops."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 32)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class PadConcat(torch.nn.Module):
    """A pad and a concatenation: data movement that is not a linalg op."""

    def forward(self, x):
        y = torch.nn.functional.pad(x, (1, 2))
        return torch.cat([y, y * 2.0], dim=0)
