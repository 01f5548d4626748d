"""Small PyTorch layers for end-to-end compiler tests (importable by the
frontend process, which receives models pickled)."""

import torch


class Softmax(torch.nn.Module):
    """Row softmax: a max reduction, a broadcast subtract and exp, a sum
    reduction, a broadcast divide."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class PadConcat(torch.nn.Module):
    """A pad and a concatenation: data movement that is not a linalg op."""

    def forward(self, x):
        y = torch.nn.functional.pad(x, (1, 2))
        return torch.cat([y, y * 2.0], dim=0)


class ConvBlock(torch.nn.Module):
    """Padded 3x3 convolution, a strided depthwise convolution, ReLUs and a
    max pooling: the CNN ops, with the bias broadcasts they bring."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.pool(torch.relu(self.depthwise(x)))


class Attention(torch.nn.Module):
    """Scores of one head: a batched matmul and a softmax."""

    def forward(self, q, k):
        return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.25, dim=-1)


class BatchedLinear(torch.nn.Module):
    """A linear layer on a (batch, sequence, features) input: the matmul's
    result is returned reshaped back to three dimensions."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)


class Rotary(torch.nn.Module):
    """Rotary position embedding (as Llama-family models apply it to queries
    and keys): angles position x frequency, the input rotated by their cos
    and sin. The positions are an input, so cos and sin run on the chip."""

    def __init__(self, dim=32):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, positions):
        freqs = positions[:, None] * self.inv_freq[None, :]
        angles = torch.cat([freqs, freqs], dim=-1)
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * angles.cos() + rotated * angles.sin()


class Conv1dBlock(torch.nn.Module):
    """Whisper's encoder stem: two 1-D convolutions (the second strided),
    each followed by a GELU."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(8, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv1d(16, 16, 3, stride=2, padding=1)

    def forward(self, x):
        x = torch.nn.functional.gelu(self.conv1(x))
        return torch.nn.functional.gelu(self.conv2(x))


class GroupedConv(torch.nn.Module):
    """RegNet's grouped 3x3 convolution (4 groups), strided, and a dilated
    one with 2 groups."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=4)
        self.conv2 = torch.nn.Conv2d(32, 16, 3, padding=2, dilation=2, groups=2)

    def forward(self, x):
        return self.conv2(torch.relu(self.conv1(x)))


class MaskedAttention(torch.nn.Module):
    """scaled_dot_product_attention as users write it: causal, with a
    boolean mask (a row masked everywhere gives zeros) or with an additive
    one."""

    def __init__(self, mask: str):
        super().__init__()
        self.mask = mask

    def forward(self, q, k, v, mask):
        F = torch.nn.functional
        if self.mask == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.mask == "boolean":
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask > 0)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class GroupedQueryAttention(torch.nn.Module):
    """Fewer key and value heads than query heads (Llama, Mistral): each
    key/value head serves two query heads."""

    def forward(self, q, k, v):
        k, v = k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


class MultiheadAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class EncoderLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0,
                                                      batch_first=True)

    def forward(self, x):
        return self.layer(x)


class RMSNormSwiGLU(torch.nn.Module):
    """Llama's feed-forward block: RMSNorm, then a SiLU-gated projection."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(32)
        self.gate = torch.nn.Linear(32, 64, bias=False)
        self.up = torch.nn.Linear(32, 64, bias=False)
        self.down = torch.nn.Linear(64, 32, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Bitwise(torch.nn.Module):
    """A bitwise and of integers (which the vector unit has no operation
    for) then a linear layer."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, ids):
        h = (ids & 7).float()  # the line the error names
        return self.fc(h)


class ResidualStage(torch.nn.Module):
    """Two ResNet basic blocks (convolution, batch norm, ReLU; convolution,
    batch norm, residual add, ReLU) and a strided padded convolution after
    them, with batch-norm statistics that are not the identity."""

    def __init__(self, channels=16):
        super().__init__()
        c = channels

        def block():
            return torch.nn.ModuleList([
                torch.nn.Conv2d(c, c, 3, padding=1, bias=False),
                torch.nn.BatchNorm2d(c),
                torch.nn.Conv2d(c, c, 3, padding=1, bias=False),
                torch.nn.BatchNorm2d(c)])

        self.blocks = torch.nn.ModuleList([block(), block()])
        self.down = torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1, bias=False)
        generator = torch.Generator().manual_seed(0)
        for m in self.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                for t, lo, hi in ((m.running_mean, -1, 1), (m.running_var, 0.5, 2),
                                  (m.weight.data, 0.5, 1.5), (m.bias.data, -1, 1)):
                    t.copy_(torch.rand(t.shape, generator=generator) * (hi - lo) + lo)

    def forward(self, x):
        for conv1, bn1, conv2, bn2 in self.blocks:
            y = torch.relu(bn1(conv1(x)))
            x = torch.relu(bn2(conv2(y)) + x)
        return self.down(x)


class NormSoftmax(torch.nn.Module):
    """A residual add, a layer norm and a row softmax: as imported, the
    layer norm computes its mean twice and its squared deviations as a
    tensor, and the softmax its exponentials as a tensor that two ops
    read."""

    def __init__(self, features=32):
        super().__init__()
        self.norm = torch.nn.LayerNorm(features)

    def forward(self, x, y):
        return torch.softmax(self.norm(x + y), dim=-1)
