"""The coverage cases: PyTorch ops and ``nn`` modules, each with its inputs.

Functional ops run through ``Op`` (a module naming a function of
``FUNCTIONS``), so that one picklable class covers them all.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import register


def _randn(*shape):
    return torch.randn(*shape)


def _positive(*shape):
    return torch.rand(*shape) + 0.1


FUNCTIONS = {
    # Elementwise.
    "relu": F.relu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "abs": torch.abs, "neg": torch.neg, "reciprocal": torch.reciprocal,
    "sin": torch.sin, "cos": torch.cos, "erf": torch.erf,
    "softplus": F.softplus, "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "elu": F.elu, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "mish": F.mish, "relu6": F.relu6,
    "clamp": lambda x: torch.clamp(x, -0.5, 0.5), "square": torch.square,
    "pow3": lambda x: x ** 3, "floor": torch.floor,
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "maximum": torch.maximum, "minimum": torch.minimum,
    "add_broadcast": lambda x, y: x + y[0],
    "where": lambda x, y: torch.where(x > 0, x, y),
    "scalar_ops": lambda x: (x * 2.0 + 1.0) / 3.0 - 0.5,
    # Reductions.
    "sum": lambda x: x.sum(dim=-1), "mean": lambda x: x.mean(dim=-1),
    "amax": lambda x: x.amax(dim=-1), "amin": lambda x: x.amin(dim=-1),
    "sum_all": lambda x: x.sum(), "var": lambda x: x.var(dim=-1),
    "std": lambda x: x.std(dim=-1), "logsumexp": lambda x: torch.logsumexp(x, -1),
    "softmax": lambda x: F.softmax(x, -1), "log_softmax": lambda x: F.log_softmax(x, -1),
    "argmax": lambda x: x.argmax(dim=-1), "argmin": lambda x: x.argmin(dim=0),
    "cumsum": lambda x: x.cumsum(dim=-1),
    "norm": lambda x: torch.linalg.vector_norm(x, dim=-1),
    # Linear algebra.
    "matmul": torch.matmul, "bmm": torch.bmm,
    "einsum": lambda x, y: torch.einsum("bij,bjk->bik", x, y),
    "outer": torch.outer,
    # Data movement.
    "cat": lambda x, y: torch.cat([x, y], dim=0),
    "stack": lambda x, y: torch.stack([x, y], dim=1),
    "transpose": lambda x: x.transpose(0, 1) * 1.0,
    "permute": lambda x: x.permute(2, 0, 1) * 1.0,
    "reshape": lambda x: x.reshape(4, -1) * 1.0,
    "flatten": lambda x: torch.flatten(x, 1) * 1.0,
    "slice": lambda x: x[:, 2:10:2] * 1.0, "narrow": lambda x: x.narrow(1, 3, 5) * 1.0,
    "pad": lambda x: F.pad(x, (1, 2, 3, 0)),
    "pad_reflect": lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"),
    "repeat": lambda x: x.repeat(2, 1), "expand": lambda x: x[:, :1].expand(-1, 8) * 1.0,
    "squeeze_unsqueeze": lambda x: x.unsqueeze(0).squeeze(0) * 2.0,
    "flip": lambda x: torch.flip(x, [1]), "roll": lambda x: torch.roll(x, 2, 1),
    "triu_mask": lambda x: x.masked_fill(torch.triu(torch.ones(8, 8, dtype=torch.bool), 1),
                                         float("-inf")).softmax(-1),
    "chunk": lambda x: sum(torch.chunk(x, 2, dim=1)),
    "index_select": lambda x: torch.index_select(x, 0, torch.tensor([2, 0, 1])),
    "gather": lambda x, i: torch.gather(x, 1, i),
    "index_tensor": lambda x, i: x[i],
    "take_along_dim": lambda x, i: torch.take_along_dim(x, i, dim=0),
    "pad_replicate": lambda x: F.pad(x, (2, 1, 1, 2), mode="replicate"),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2),
    "interpolate_bilinear_aligned": lambda x: F.interpolate(
        x, size=(12, 12), mode="bilinear", align_corners=True),
    # Integer arithmetic.
    "int_where": lambda i: torch.where(i > 40, i, i * 3 - 7),
    "int_clamp": lambda i: i.clamp(-5, 50),
    "int32_arith": lambda i: i.int() * 3 - 1,
    "int_to_float": lambda i: i.float() / 7.0,
    "count_nonzero": lambda i: (i != 0).sum(-1),
    "int_amin": lambda i: i.amin(-1),
    "int_sum": lambda i: i.sum(0),
    "int_cumsum": lambda i: i.cumsum(0),
    "int_floor_divide": lambda i: i // 3,
    "int_remainder": lambda i: i % 7,
    "float_to_long": lambda x: (x * 10).long(),
    # Hugging Face's position ids of a left-padded batch.
    "position_ids": lambda m: (m.cumsum(-1) - 1).masked_fill(m == 0, 1),
    "topk": lambda x: torch.topk(x, 3, dim=-1).values,
    "sort": lambda x: torch.sort(x, dim=-1).values,
    "interpolate_nearest": lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
    "interpolate_bilinear": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "sdpa_causal": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    "sdpa_boolean_mask": lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m > 0),
    "sdpa_additive_mask": lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
    "rotary": lambda x, pos: x * torch.cos(pos[:, None] * torch.ones(16))
    + torch.roll(x, 8, -1) * torch.sin(pos[:, None] * torch.ones(16)),
}


class Op(nn.Module):
    """``FUNCTIONS[name]`` as a module."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def forward(self, *xs):
        return FUNCTIONS[self.name](*xs)


def _op(name, group, *inputs, description="", **kwargs):
    register(name, group, lambda: (Op(name), tuple(make() for make in inputs)),
             description=description or f"`{name}`", **kwargs)


def _module(name, group, make_module, *inputs, description="", **kwargs):
    register(name, group, lambda: (make_module(), tuple(make() for make in inputs)),
             description=description, **kwargs)


# Why the cases registered in the loops below fail today.
_KNOWN_FAILURES: dict[str, str] = {}

x8x16 = lambda: _randn(8, 16)
pos8x16 = lambda: _positive(8, 16)

# ---- elementwise ---------------------------------------------------------
_op("gelu_tanh", "Elementwise", x8x16, rtol=1e-4, atol=1e-4,
    description="`F.gelu(approximate='tanh')`; tolerance 1e-4: torch-mlir's "
    "decomposition uses 0.797724 for sqrt(2 / pi) = 0.7978846 (5e-5 off eager "
    "on these inputs)")
for _name in ("relu", "gelu", "silu", "sigmoid", "tanh", "exp", "abs",
              "neg", "sin", "cos", "erf", "softplus", "leaky_relu", "elu",
              "hardswish", "hardsigmoid", "mish", "relu6", "clamp", "square",
              "pow3", "floor", "scalar_ops"):
    _op(_name, "Elementwise", x8x16, xfail=_KNOWN_FAILURES.get(_name))
for _name in ("log", "sqrt", "rsqrt", "reciprocal"):
    _op(_name, "Elementwise", pos8x16)
for _name in ("add", "sub", "mul", "maximum", "minimum", "where"):
    _op(_name, "Elementwise", x8x16, x8x16)
_op("div", "Elementwise", x8x16, pos8x16)
_op("add_broadcast", "Elementwise", x8x16, x8x16, description="`x + y[0]`, a row broadcast")

# ---- reductions ----------------------------------------------------------
for _name in ("sum", "mean", "amax", "amin", "sum_all", "var", "std", "logsumexp",
              "softmax", "log_softmax", "argmax", "argmin", "cumsum", "norm"):
    _op(_name, "Reductions", x8x16, xfail=_KNOWN_FAILURES.get(_name))

# ---- linear algebra ------------------------------------------------------
_op("matmul", "Linear algebra", x8x16, lambda: _randn(16, 8))
_op("bmm", "Linear algebra", lambda: _randn(2, 8, 16), lambda: _randn(2, 16, 8))
_op("einsum", "Linear algebra", lambda: _randn(2, 8, 16), lambda: _randn(2, 16, 8),
    description="`einsum('bij,bjk->bik')`")
_op("outer", "Linear algebra", lambda: _randn(8), lambda: _randn(16))
_module("linear", "Linear algebra", lambda: nn.Linear(16, 32), x8x16,
        description="`nn.Linear`")
_module("linear_3d", "Linear algebra", lambda: nn.Linear(16, 32), lambda: _randn(2, 8, 16),
        description="`nn.Linear` on (batch, sequence, features)")
_module("mlp", "Linear algebra",
        lambda: nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)), x8x16,
        description="`nn.Sequential` of linears and a ReLU")

# ---- normalization -------------------------------------------------------
_module("layer_norm", "Normalization", lambda: nn.LayerNorm(16), x8x16,
        description="`nn.LayerNorm`")
_module("rms_norm", "Normalization", lambda: nn.RMSNorm(16), x8x16, description="`nn.RMSNorm`")
_module("batch_norm", "Normalization", lambda: nn.BatchNorm2d(8), lambda: _randn(1, 8, 8, 8),
        description="`nn.BatchNorm2d` (eval)")
_module("group_norm", "Normalization", lambda: nn.GroupNorm(2, 8), lambda: _randn(1, 8, 8, 8),
        description="`nn.GroupNorm`")
_module("instance_norm", "Normalization", lambda: nn.InstanceNorm2d(8),
        lambda: _randn(1, 8, 8, 8), description="`nn.InstanceNorm2d`")

# ---- convolutions and pooling --------------------------------------------
image = lambda: _randn(1, 8, 16, 16)
_module("conv2d", "Convolutions and pooling", lambda: nn.Conv2d(8, 16, 3, padding=1), image,
        description="`nn.Conv2d` 3x3, padded")
_module("conv2d_strided", "Convolutions and pooling",
        lambda: nn.Conv2d(8, 16, 3, stride=2, padding=1), image,
        description="`nn.Conv2d` 3x3, stride 2")
_module("conv2d_dilated", "Convolutions and pooling",
        lambda: nn.Conv2d(8, 8, 3, padding=2, dilation=2), image,
        description="`nn.Conv2d` dilated")
_module("conv2d_1x1", "Convolutions and pooling", lambda: nn.Conv2d(8, 32, 1), image,
        description="`nn.Conv2d` 1x1")
_module("conv2d_grouped", "Convolutions and pooling",
        lambda: nn.Conv2d(8, 16, 3, padding=1, groups=4), image,
        description="`nn.Conv2d`, 4 groups")
_module("conv2d_depthwise", "Convolutions and pooling",
        lambda: nn.Conv2d(8, 8, 3, padding=1, groups=8), image,
        description="`nn.Conv2d`, depthwise")
_module("conv1d", "Convolutions and pooling", lambda: nn.Conv1d(8, 16, 3, padding=1),
        lambda: _randn(2, 8, 32), description="`nn.Conv1d`")
_module("conv1d_strided", "Convolutions and pooling",
        lambda: nn.Conv1d(8, 8, 3, stride=2, padding=1), lambda: _randn(1, 8, 32),
        description="`nn.Conv1d`, stride 2 (Whisper's encoder)")
_module("conv_transpose2d", "Convolutions and pooling",
        lambda: nn.ConvTranspose2d(8, 4, 2, stride=2), lambda: _randn(1, 8, 8, 8),
        description="`nn.ConvTranspose2d`")
_module("conv_transpose2d_padded", "Convolutions and pooling",
        lambda: nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
        lambda: _randn(1, 8, 8, 8),
        description="`nn.ConvTranspose2d` 3x3, stride 2, padded (a decoder's upsampling)")
_module("conv3d", "Convolutions and pooling", lambda: nn.Conv3d(4, 8, 3, padding=1),
        lambda: _randn(1, 4, 4, 8, 8), description="`nn.Conv3d`")
_module("video_head", "Convolutions and pooling",
        lambda: nn.Sequential(nn.Conv3d(4, 8, 3, padding=1), nn.ReLU(),
                              nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(8, 5)),
        lambda: _randn(1, 4, 4, 8, 8),
        description="`nn.Conv3d`, `nn.AdaptiveAvgPool3d(1)`, `nn.Linear` (a video "
        "classifier's head: a mean over a 5-D tensor)")
_module("max_pool3d", "Convolutions and pooling",
        lambda: nn.MaxPool3d(3, stride=(1, 2, 2), padding=1),
        lambda: _randn(1, 2, 4, 8, 8), description="`nn.MaxPool3d`, padded")
_module("avg_pool3d", "Convolutions and pooling", lambda: nn.AvgPool3d(2),
        lambda: _randn(1, 2, 4, 4, 4), description="`nn.AvgPool3d`")
_module("unet_block", "Convolutions and pooling", lambda: _UNetBlock(),
        lambda: _randn(1, 4, 16, 16),
        description="a UNet level: convolutions, `GroupNorm`, SiLU, max pooling "
        "down, nearest upsampling, the skip concatenated")
_module("max_pool2d", "Convolutions and pooling", lambda: nn.MaxPool2d(2), image,
        description="`nn.MaxPool2d`")
_module("max_pool2d_padded", "Convolutions and pooling",
        lambda: nn.MaxPool2d(3, stride=2, padding=1), image,
        description="`nn.MaxPool2d` 3x3, stride 2, padded (ResNet's stem)")
_module("avg_pool2d", "Convolutions and pooling", lambda: nn.AvgPool2d(2), image,
        description="`nn.AvgPool2d`")
_module("adaptive_avg_pool_1x1", "Convolutions and pooling",
        lambda: nn.AdaptiveAvgPool2d(1), image, description="`nn.AdaptiveAvgPool2d(1)`")
_module("adaptive_avg_pool_4x4", "Convolutions and pooling",
        lambda: nn.AdaptiveAvgPool2d(4), image, description="`nn.AdaptiveAvgPool2d(4)`")
_module("adaptive_max_pool", "Convolutions and pooling",
        lambda: nn.AdaptiveMaxPool2d(1), image, description="`nn.AdaptiveMaxPool2d(1)`")
_op("interpolate_nearest", "Convolutions and pooling", lambda: _randn(1, 4, 8, 8),
    description="`F.interpolate`, nearest, x2")
_op("interpolate_bilinear", "Convolutions and pooling", lambda: _randn(1, 4, 8, 8),
    description="`F.interpolate`, bilinear, x2")
_op("interpolate_bilinear_aligned", "Convolutions and pooling",
    lambda: _randn(1, 4, 8, 8),
    description="`F.interpolate`, bilinear to 12x12, `align_corners=True`")

# ---- data movement -------------------------------------------------------
_op("cat", "Data movement", x8x16, x8x16)
_op("stack", "Data movement", x8x16, x8x16)
_op("transpose", "Data movement", x8x16)
_op("permute", "Data movement", lambda: _randn(2, 4, 8))
_op("reshape", "Data movement", x8x16)
_op("flatten", "Data movement", lambda: _randn(2, 4, 8))
_op("slice", "Data movement", x8x16, description="`x[:, 2:10:2]`")
_op("narrow", "Data movement", x8x16)
_op("pad", "Data movement", x8x16, description="`F.pad`, constant")
_op("pad_reflect", "Data movement", lambda: _randn(1, 2, 8, 8), description="`F.pad`, reflect")
_op("repeat", "Data movement", x8x16)
_op("expand", "Data movement", x8x16)
_op("squeeze_unsqueeze", "Data movement", x8x16)
_op("flip", "Data movement", x8x16)
_op("roll", "Data movement", x8x16)
_op("chunk", "Data movement", x8x16)
_op("index_select", "Data movement", x8x16, description="`index_select` with constant indices")
_op("gather", "Data movement", x8x16, lambda: torch.randint(0, 16, (8, 4)),
    description="`torch.gather` with indices as an input")
_op("index_tensor", "Data movement", x8x16, lambda: torch.randint(0, 8, (5,)),
    description="`x[ids]`, advanced indexing with an index tensor")
_op("take_along_dim", "Data movement", x8x16, lambda: torch.randint(0, 8, (3, 16)),
    description="`torch.take_along_dim` along dimension 0 (indices taken modulo "
    "the dimension: a wrapping gather)")
_op("pad_replicate", "Data movement", lambda: _randn(1, 2, 8, 8),
    description="`F.pad`, replicate")
_op("pixel_shuffle", "Data movement", lambda: _randn(1, 8, 4, 4),
    description="`F.pixel_shuffle` (sub-pixel upsampling)")
_op("topk", "Data movement", x8x16,
    xfail="torch-mlir lowers it to `tm_tensor.sort`, outside the input contract")
_op("sort", "Data movement", x8x16,
    xfail="torch-mlir lowers it to `tm_tensor.sort`, outside the input contract")

# ---- integer arithmetic --------------------------------------------------
ints4x8 = lambda: torch.randint(-50, 100, (4, 8))
for _name, _what in (("int_where", "`torch.where` of an i64 comparison, i64 arithmetic"),
                     ("int_clamp", "`clamp` of i64"),
                     ("int32_arith", "i64 to i32, i32 arithmetic"),
                     ("int_to_float", "i64 to f32"),
                     ("count_nonzero", "`(ids != 0).sum(-1)`, an i64 sum of booleans"),
                     ("int_amin", "`amin` of i64"),
                     ("int_sum", "`sum` of i64"),
                     ("int_cumsum", "`cumsum` of i64"),
                     ("int_floor_divide", "`ids // 3` (through f32, as torch-mlir "
                      "writes it)")):
    _op(_name, "Integer arithmetic", ints4x8, description=_what)
_op("int_remainder", "Integer arithmetic", ints4x8,
    description="`ids % 7`, Python's modulo: a truncating division, then the sign "
    "adjusted")
_op("float_to_long", "Integer arithmetic", x8x16,
    description="`x.long()`, a conversion that truncates toward zero")
_op("position_ids", "Integer arithmetic",
    lambda: torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]]),
    description="position ids from a padded attention mask, "
    "`(mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)`")
ids2x8 = lambda: torch.randint(0, 90, (2, 8))
_module("embedding_shifted_ids", "Integer arithmetic", lambda: _ShiftedEmbedding(), ids2x8,
        description="`nn.Embedding` of `ids + 1`: the vector unit computes the "
        "ids the gather reads")
_module("embedding_padding_mask", "Integer arithmetic", lambda: _MaskedEmbedding(), ids2x8,
        description="embeddings times a padding mask `ids != 0`")
_module("embedding_modulo_ids", "Integer arithmetic", lambda: _ModuloEmbedding(), ids2x8,
        description="`nn.Embedding` of `ids * 2 % 100`: the modulo of computed ids is "
        "computed, not read as the gather's wrap")


class _ShiftedEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(100, 16)

    def forward(self, ids):
        return self.embedding(ids + 1)


class _MaskedEmbedding(_ShiftedEmbedding):
    def forward(self, ids):
        return self.embedding(ids) * (ids != 0).unsqueeze(-1)


class _ModuloEmbedding(_ShiftedEmbedding):
    def forward(self, ids):
        return self.embedding(ids * 2 % 100)


# ---- attention and transformers ------------------------------------------
heads = lambda: _randn(1, 4, 8, 16)
_op("sdpa_causal", "Attention and transformers", heads, heads, heads,
    description="`F.scaled_dot_product_attention`, causal")
_op("sdpa_boolean_mask", "Attention and transformers", heads, heads, heads,
    lambda: _randn(8, 8), description="SDPA with a boolean mask")
_op("sdpa_additive_mask", "Attention and transformers", heads, heads, heads,
    lambda: _randn(8, 8), description="SDPA with an additive mask")
_op("triu_mask", "Attention and transformers", lambda: _randn(8, 8),
    description="a causal mask from `torch.triu`, `masked_fill`, softmax")
_op("rotary", "Attention and transformers", x8x16, lambda: torch.arange(8).float() * 3.0,
    description="rotary embedding: `cos`, `sin` of position x frequency")
_module("multihead_attention", "Attention and transformers",
        lambda: _SelfAttention(), lambda: _randn(2, 8, 32),
        description="`nn.MultiheadAttention` (self-attention)")
_module("encoder_layer", "Attention and transformers",
        lambda: nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True),
        lambda: _randn(2, 8, 32), description="`nn.TransformerEncoderLayer`")
_module("onnx_encoder_layer", "Attention and transformers",
        lambda: nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True),
        lambda: _randn(2, 8, 32), onnx=True,
        description="`encoder_layer` exported with `torch.onnx.export` and imported "
        "from the file")
_module("embedding", "Attention and transformers", lambda: nn.Embedding(100, 16),
        lambda: torch.randint(0, 100, (2, 8)), description="`nn.Embedding`")
_module("dropout_eval", "Attention and transformers",
        lambda: nn.Sequential(nn.Linear(16, 16), nn.Dropout(0.1)), x8x16,
        description="`nn.Dropout` in eval mode")


class _UNetBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8),
                                  nn.SiLU())
        self.inner = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1),
                                   nn.GroupNorm(2, 8), nn.SiLU(),
                                   nn.Upsample(scale_factor=2, mode="nearest"))
        self.up = nn.Conv2d(16, 4, 3, padding=1)

    def forward(self, x):
        skip = self.down(x)
        return self.up(torch.cat([self.inner(skip), skip], dim=1))


class _SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


# ---- Hugging Face models ---------------------------------------------------
# Small configs, random weights (nothing is downloaded).

class LastHiddenState(nn.Module):
    """A transformers model's `last_hidden_state`."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x).last_hidden_state


def _transformers():
    """``transformers``, imported after torchvision (whose plain import
    fails beside the CPU torch, and which transformers imports for its image
    models: tessel.coverage.vision)."""
    from .vision import import_torchvision

    import_torchvision()
    import transformers
    return transformers


def _hf_vit():
    transformers = _transformers()
    config = transformers.ViTConfig(hidden_size=32, num_hidden_layers=2,
                                    num_attention_heads=4, intermediate_size=64,
                                    image_size=32, patch_size=8)
    return LastHiddenState(transformers.ViTModel(config)), (_randn(1, 3, 32, 32),)


def _hf_whisper_encoder():
    transformers = _transformers()
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    config = transformers.WhisperConfig(
        d_model=32, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64,
        num_mel_bins=16, max_source_positions=16, vocab_size=100, pad_token_id=0,
        bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return LastHiddenState(WhisperEncoder(config)), (_randn(1, 16, 32),)


def _hf_text(kind):
    def build():
        transformers = _transformers()
        tiny = dict(num_hidden_layers=2, num_attention_heads=4, vocab_size=100,
                    max_position_embeddings=32)
        if kind == "bert":
            model = transformers.BertModel(transformers.BertConfig(
                hidden_size=32, intermediate_size=64, **tiny))
        elif kind == "t5":
            model = transformers.T5EncoderModel(transformers.T5Config(
                d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                vocab_size=100, relative_attention_num_buckets=8,
                relative_attention_max_distance=16, decoder_start_token_id=0,
                pad_token_id=0))
        elif kind == "distilbert":
            model = transformers.DistilBertModel(transformers.DistilBertConfig(
                dim=32, hidden_dim=64, n_layers=2, n_heads=4, vocab_size=100,
                max_position_embeddings=32))
        elif kind == "gpt2":
            model = transformers.GPT2Model(transformers.GPT2Config(
                n_embd=32, n_layer=2, n_head=4, vocab_size=100, n_positions=32))
        elif kind == "qwen2":
            model = transformers.Qwen2Model(transformers.Qwen2Config(
                hidden_size=32, intermediate_size=64, num_key_value_heads=2, **tiny))
        elif kind == "mistral":
            model = transformers.MistralModel(transformers.MistralConfig(
                hidden_size=32, intermediate_size=64, num_key_value_heads=2,
                head_dim=8, **tiny))
        else:
            model = transformers.LlamaModel(transformers.LlamaConfig(
                hidden_size=32, intermediate_size=64, num_key_value_heads=2, **tiny))
        return LastHiddenState(model), (torch.randint(0, 100, (1, 8)),)
    return build


register("hf_vit", "Hugging Face models", _hf_vit,
         description="`transformers.ViTModel`, 2 layers")
register("hf_whisper_encoder", "Hugging Face models", _hf_whisper_encoder,
         description="Whisper's encoder, 2 layers (1-D convolutions, position "
         "embeddings)")
for _kind, _what in (("bert", "`transformers.BertModel`"),
                     ("distilbert", "`transformers.DistilBertModel`"),
                     ("gpt2", "`transformers.GPT2Model`"),
                     ("qwen2", "`transformers.Qwen2Model` (grouped-query attention)"),
                     ("mistral", "`transformers.MistralModel`"),
                     ("t5", "`transformers.T5EncoderModel` (relative position "
                            "buckets)"),
                     ("llama", "`transformers.LlamaModel` (rotary, RMSNorm, "
                               "SwiGLU, grouped-query attention)")):
    register(f"hf_{_kind}", "Hugging Face models", _hf_text(_kind),
             description=f"{_what}, 2 layers")
for _kind in ("bert", "distilbert", "gpt2", "qwen2", "mistral", "llama"):
    register(f"onnx_hf_{_kind}", "Hugging Face models through ONNX", _hf_text(_kind),
             onnx=True, description=f"`hf_{_kind}` exported with `torch.onnx.export` "
             "and imported from the file")
register("onnx_hf_t5", "Hugging Face models through ONNX", _hf_text("t5"), onnx=True,
         onnx_exporter="torchscript",
         description="`hf_t5` exported with `torch.onnx.export(..., dynamo=False)` "
         "(torch.export's exporter fails on it, in its decomposition step) and "
         "imported from the file")
register("onnx_hf_vit", "Hugging Face models through ONNX", _hf_vit, onnx=True,
         description="`hf_vit` exported with `torch.onnx.export` and imported "
         "from the file")
register("onnx_hf_whisper_encoder", "Hugging Face models through ONNX",
         _hf_whisper_encoder, onnx=True,
         description="`hf_whisper_encoder` exported with `torch.onnx.export` and "
         "imported from the file")


# ---- torchvision models ----------------------------------------------------
# The classification models as torchvision builds them (random weights, 10
# classes, 32 x 32 images, which every one of them downsamples to 1 x 1);
# torchvision is imported through tessel.coverage.vision.

class _Torchvision:
    """torchvision's model ``name``, built when the case is run."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self):
        from .vision import import_torchvision

        models = import_torchvision().models
        return (getattr(models, self.name)(weights=None, num_classes=10),
                (_randn(1, 3, 32, 32),))


class _TorchvisionViT:
    """torchvision's VisionTransformer in a small configuration (2 layers,
    8 x 8 patches of a 32 x 32 image; vit_b_16's is 12 layers at 224 x 224)."""

    def __call__(self):
        from .vision import import_torchvision

        models = import_torchvision().models
        return (models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                         num_heads=4, hidden_dim=64, mlp_dim=128,
                                         num_classes=10),
                (_randn(1, 3, 32, 32),))


register("tv_vit", "torchvision models", _TorchvisionViT(), rtol=1e-4, atol=1e-4,
         description="`torchvision.models.VisionTransformer`, ViT (2 layers, "
         "8 x 8 patches)")
for _name, _what in (("resnet18", "ResNet-18"), ("mobilenet_v2", "MobileNetV2"),
                     ("mobilenet_v3_small", "MobileNetV3 (small)"),
                     ("efficientnet_b0", "EfficientNet-B0"),
                     ("squeezenet1_0", "SqueezeNet 1.0"),
                     ("shufflenet_v2_x0_5", "ShuffleNetV2 x0.5"),
                     ("regnet_y_400mf", "RegNetY-400MF (grouped convolutions)"),
                     ("convnext_tiny", "ConvNeXt-T")):
    register(f"tv_{_name}", "torchvision models", _Torchvision(_name),
             rtol=1e-4, atol=1e-4, description=f"`torchvision.models.{_name}`, {_what}")
for _name in ("resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
              "squeezenet1_0", "shufflenet_v2_x0_5", "regnet_y_400mf", "convnext_tiny"):
    register(f"onnx_{_name}", "torchvision models through ONNX", _Torchvision(_name),
             rtol=1e-4, atol=1e-4, onnx=True,
             description=f"`torchvision.models.{_name}` exported with "
             "`torch.onnx.export` and imported from the file")
register("onnx_vit", "torchvision models through ONNX", _TorchvisionViT(), rtol=1e-4,
         atol=1e-4, onnx=True, description="`tv_vit` exported with "
         "`torch.onnx.export` and imported from the file")

