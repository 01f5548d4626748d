"""A small transformer block, the model `make demo` compiles: pre-norm
self-attention (4 heads) and a GELU feed-forward, hidden 128, sequence 32.
Small enough to compile and simulate in seconds; every op a BERT or ViT
layer has (no causal mask: the mask GPT-2 builds from index arithmetic does
not lower yet).

    tessel compile examples/tiny_transformer.py -o out/tiny
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# The check's tolerance (`tessel compile` reads these).
RTOL = 1e-4
ATOL = 1e-4


class TinyTransformerBlock(nn.Module):
    def __init__(self, hidden=128, heads=4, ffn=512):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)

    def forward(self, x):
        b, t, c = x.shape
        d = c // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, d).transpose(1, 2) for z in (q, k, v))
        attn = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(b, t, c))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def build(seed: int = 0):
    """The block (seeded weights) and one input, batch 1, sequence 32."""
    torch.manual_seed(seed)
    model = TinyTransformerBlock()
    return model, (torch.randn(1, 32, 128),)
