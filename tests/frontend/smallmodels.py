"""Small modules for reference-execution and import tests."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ReturnsInput(nn.Module):
    def forward(self, x):
        return x


class ReturnsConstant(nn.Module):
    """One output computed, one a constant (a plain tensor attribute, not a
    buffer, so it stays a constant in the IR)."""

    def __init__(self):
        super().__init__()
        self.table = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -0.125]])

    def forward(self, x):
        return x * 2.0, self.table


class PositionTable(nn.Module):
    """A linear layer plus a table registered as a non-persistent buffer
    (position ids and rotary tables are kept this way): not in the state
    dict, yet read by forward."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.register_buffer("pos", torch.arange(16, dtype=torch.float32) / 16,
                             persistent=False)

    def forward(self, x):
        return self.lin(x) + self.pos


class Upsample(nn.Module):
    """Resize with scale factors (an ONNX Resize whose `scales` initializer
    controls the output shape) followed by a convolution with real weights."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)

    def forward(self, x):
        return self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))
