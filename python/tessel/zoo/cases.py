"""The registered zoo cases, at the sizes the models have in practice."""

from __future__ import annotations

import torch

from ..frontend.model import BF16_TOLERANCE
from . import register
from . import models as m


def _gen(seed: int = 0) -> torch.Generator:
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


@register("mlp", rtol=1e-5, atol=1e-5)
def mlp():
    """2-layer MLP, 64 -> 128 -> 10, batch 8."""
    g = _gen()
    return m.MLP(), (torch.randn(8, 64, generator=g),)


@register("small_cnn", rtol=1e-4, atol=1e-4)
def small_cnn():
    """conv, batchnorm, relu, maxpool (twice), linear; 1x3x32x32."""
    g = _gen()
    model = m.SmallCNN()
    m.randomize_batchnorm(model, g)
    return model, (torch.randn(1, 3, 32, 32, generator=g),)


@register("resnet18", rtol=1e-3, atol=1e-3, slow={("jit", "onnx")})
def resnet18():
    """ResNet-18, 1x3x224x224, 1000 classes."""
    g = _gen()
    model = m.ResNet18()
    m.randomize_batchnorm(model, g)
    return model, (torch.randn(1, 3, 224, 224, generator=g),)


@register("mobilenetv2_block", rtol=1e-4, atol=1e-4)
def mobilenetv2_block():
    """MobileNetV2 inverted residual (depthwise conv), 24 channels x6, 1x24x56x56."""
    g = _gen()
    model = m.InvertedResidual()
    m.randomize_batchnorm(model, g)
    return model, (torch.randn(1, 24, 56, 56, generator=g),)


@register("bert_layer", rtol=1e-3, atol=1e-3, slow={("jit", "onnx")})
def bert_layer():
    """BERT-base encoder layer: seq 128, hidden 768, 12 heads, batch 1."""
    g = _gen()
    return m.BertLayer(), (torch.randn(1, 128, 768, generator=g),)


@register("gpt2_block", rtol=1e-3, atol=1e-3, slow={("jit", "onnx")})
def gpt2_block():
    """GPT-2 decoder block with causal attention: seq 128, hidden 768, 12 heads."""
    g = _gen()
    return m.GPT2Block(), (torch.randn(1, 128, 768, generator=g),)


@register("gpt2_block_small", rtol=1e-4, atol=1e-4)
def gpt2_block_small():
    """The GPT-2 block at test size (seq 16, hidden 64, 2 heads): the causal
    mask and tanh GELU in seconds."""
    g = _gen()
    return m.GPT2Block(hidden=64, heads=2), (torch.randn(1, 16, 64, generator=g),)


@register("vit_block", rtol=1e-3, atol=1e-3, slow={("jit", "onnx")})
def vit_block():
    """ViT-B/16 patch embedding + class token + one encoder block, 1x3x224x224."""
    g = _gen()
    return m.ViTBlock(), (torch.randn(1, 3, 224, 224, generator=g),)


@register("mlp_train_step", rtol=1e-4, atol=1e-5, training=True)
def mlp_train_step():
    """One training step of the MLP: one-hot cross-entropy loss and gradients."""
    g = _gen()
    x = torch.randn(8, 64, generator=g)
    labels = torch.randint(0, 10, (8,), generator=g)
    target = torch.nn.functional.one_hot(labels, 10).to(torch.float32)
    return m.MLP(), m.one_hot_cross_entropy, (x,), (target,)


# bfloat16 variants: weights, activations and MACs in bf16 (the MAC array
# accumulates in f32, as PyTorch's bf16 matmul does), against PyTorch's own
# bf16 eager at bf16's tolerance.
BF16 = dict(zip(("rtol", "atol", "scale_rtol"), BF16_TOLERANCE))


def _in_bf16(built):
    model, inputs = built
    return model.to(torch.bfloat16), tuple(x.to(torch.bfloat16) for x in inputs)


@register("mlp_bf16", **BF16)
def mlp_bf16():
    """The MLP in bfloat16."""
    return _in_bf16(mlp())


@register("small_cnn_bf16", **BF16)
def small_cnn_bf16():
    """The small CNN in bfloat16: bf16 convolutions and pooling."""
    return _in_bf16(small_cnn())


@register("gpt2_block_small_bf16", **BF16)
def gpt2_block_small_bf16():
    """The test-size GPT-2 block in bfloat16: attention, softmax, layer norm
    and tanh GELU in bf16."""
    return _in_bf16(gpt2_block_small())


# int8 variants, quantized with PyTorch's PT2E flow (torchao's prepare_pt2e
# and convert_pt2e, XNNPACK's symmetric int8 config, per-channel weights,
# calibrated on 8 seeded inputs): int8 MACs accumulating in i32, against
# PyTorch eager running the converted model, within one step of the output's
# quantization (Case.tolerance).


def in_int8(built, calibration: int = 8):
    """``built`` (a module and its example inputs) quantized with PT2E as
    the int8 cases are, calibrated on ``calibration`` seeded inputs."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.testing.pt2e._xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)

    model, inputs = built
    exported = torch.export.export(model.eval(), inputs).module()
    prepared = prepare_pt2e(exported, XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True)))
    g = _gen(1)
    for _ in range(calibration):
        prepared(*(torch.randn(*x.shape, generator=g) for x in inputs))
    return convert_pt2e(prepared), inputs


def output_step(model) -> float:
    """The step of the quantization a PT2E model's output is dequantized
    from: the scale of the ``dequantize_per_tensor`` that gives it (of the
    largest, for several outputs)."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)

    dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
    (output,) = [n for n in model.graph.nodes if n.op == "output"]
    results = output.args[0]
    steps = []
    for node in results if isinstance(results, (tuple, list)) else [results]:
        if getattr(node, "target", None) != dequantize:
            raise ValueError(f"output {node} of the quantized model is not "
                             "dequantized from int8: it has no step")
        steps.append(float(node.args[1]))
    return max(steps)


@register("mlp_int8", quantized=True)
def mlp_int8():
    """The MLP quantized to int8 with PT2E."""
    return in_int8(mlp())


@register("small_cnn_int8", quantized=True)
def small_cnn_int8():
    """The small CNN quantized to int8 with PT2E: int8 convolutions, the
    input padded with its zero point."""
    return in_int8(small_cnn())


@register("gpt2_block_small_int8", quantized=True)
def gpt2_block_small_int8():
    """The test-size GPT-2 block quantized to int8 with PT2E: its linear
    layers multiply int8; XNNPACK's quantizer leaves the attention's
    products, the softmax and the layer norms in f32."""
    return in_int8(gpt2_block_small())
