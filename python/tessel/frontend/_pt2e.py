"""Models quantized with PyTorch's PT2E flow (``torch.export``, then
torchao's ``prepare_pt2e`` and ``convert_pt2e``): their graphs call the
``quantized_decomposed`` ops around ATen's float ops, the weights stored as
int8 and each activation quantized and dequantized where the quantizer put
an observer.

The capture replaces those ops by PyTorch's own kernels for them (their
``CompositeExplicitAutograd`` implementations, written in ATen ops:
``clamp(round(x * (1 / scale)) + zero_point)`` to quantize,
``(q - zero_point) * scale`` to dequantize), so the program computes what
eager PyTorch computes from the same graph; the compiler then finds the
int8 products in it (docs/lowering.md, *Quantized models*). A per-channel
dequantization whose zero points are all 0 (the symmetric weights every
PT2E quantizer makes) loses them: ``q * scale`` gives the same values, and
the compiler reads it as a weight to multiply in int8.

Static int8 quantization is what the chip runs. uint8 values (the
activations of X86InductorQuantizer's default config) are shifted into
int8, exactly: `q - 128` with the zero point and the bounds shifted alike
gives `(q - zp) * scale` the same values. Dynamic quantization (scales
chosen at run time), per-token and per-group schemes and other dtypes are
refused by name, with what is supported.
"""

from __future__ import annotations

NAMESPACE = "quantized_decomposed"
# The ops Tessel lowers, by overload name, and what to call them in errors.
SUPPORTED = ("quantize_per_tensor.default", "dequantize_per_tensor.default",
             "quantize_per_channel.default", "dequantize_per_channel.default")
# The quantized dtypes Tessel takes: the MAC arrays multiply int8, and
# uint8 is shifted into it.
DTYPES = ("torch.int8", "torch.uint8")
# uint8 - UINT8_SHIFT is int8.
UINT8_SHIFT = 128


class PT2EError(Exception):
    """A PT2E op or dtype Tessel does not compile."""


def is_pt2e_op(target) -> bool:
    return getattr(target, "namespace", None) == NAMESPACE


def _name(op) -> str:
    return f"{op._schema.name}.{op._overloadname}"


def _in_int8(kernel, quantizes: bool):
    """``kernel`` (PyTorch's, its arguments ``input, scale(s), zero
    point(s), ...(per channel: axis), quant_min, quant_max, dtype``) taking
    uint8 as int8: the zero points and the bounds shifted by UINT8_SHIFT,
    and a dequantized uint8 input (one no quantization here made) too."""
    import torch

    def shifted(input, scales, zero_points, *rest, **kwargs):
        *middle, quant_min, quant_max, dtype = rest
        if dtype != torch.uint8:
            return kernel(input, scales, zero_points, *rest, **kwargs)
        if not quantizes and input.dtype == torch.uint8:
            input = (input.to(torch.int32) - UINT8_SHIFT).to(torch.int8)
        if zero_points is not None:
            zero_points = zero_points - UINT8_SHIFT
        return kernel(input, scales, zero_points, *middle, quant_min - UINT8_SHIFT,
                      quant_max - UINT8_SHIFT, torch.int8, **kwargs)

    return shifted


def _kernels() -> dict:
    """PyTorch's kernels of the supported ops, by ``OpOverload``, uint8
    shifted into int8 (_in_int8)."""
    import torch
    from torch.ao.quantization.fx import _decomposed as kernels

    ops = torch.ops.quantized_decomposed
    return {ops.quantize_per_tensor.default:
            _in_int8(kernels.quantize_per_tensor, quantizes=True),
            ops.dequantize_per_tensor.default:
            _in_int8(kernels.dequantize_per_tensor, quantizes=False),
            ops.quantize_per_channel.default:
            _in_int8(kernels.quantize_per_channel, quantizes=True),
            ops.dequantize_per_channel.default:
            _in_int8(kernels.dequantize_per_channel, quantizes=False)}


def _dtype_of(node):
    """The quantized dtype a supported op's call names (its argument
    ``dtype``)."""
    schema = node.target._schema
    names = [a.name for a in schema.arguments]
    at = names.index("dtype")
    return node.args[at] if at < len(node.args) else node.kwargs.get("dtype")


def decompositions(program, where) -> dict:
    """The decompositions of the PT2E ops ``program`` calls, by
    ``OpOverload``; ``PT2EError`` for one Tessel does not compile, naming it
    (``where(node)`` gives its source line) and what is supported."""
    found = {}
    for node in program.graph.nodes:
        if node.op != "call_function" or not is_pt2e_op(node.target):
            continue
        kernels = _kernels()
        at = where(node)
        at = f" at {at}" if at else ""
        if node.target not in kernels:
            raise PT2EError(
                f"quantization op '{_name(node.target)}'{at} is not supported: Tessel "
                f"compiles static int8 quantization ({', '.join(SUPPORTED)}, their scales "
                f"and zero points fixed at conversion); dynamic, per-token and "
                f"per-group schemes are not. Quantize with a static config, e.g. "
                f"get_symmetric_quantization_config(is_per_channel=True, is_dynamic=False)")
        dtype = _dtype_of(node)
        if str(dtype) not in DTYPES:
            raise PT2EError(
                f"quantization op '{_name(node.target)}'{at} quantizes to {dtype}: Tessel "
                f"takes {' and '.join(DTYPES)} (its MAC arrays multiply int8); choose a "
                f"quantizer config with 8-bit integer activations and weights "
                f"(XNNPACKQuantizer's and X86InductorQuantizer's default configs)")
        found[node.target] = kernels[node.target]
    return found


def drop_zero_zero_points(program, values: dict) -> None:
    """Takes the zero points out of each per-channel dequantization in
    ``program`` whose zero points are all 0. ``values`` gives the tensor of
    each placeholder that holds a weight or buffer, by name."""
    import torch

    changed = False
    for node in program.graph.nodes:
        if (node.op != "call_function" or not is_pt2e_op(node.target)
                or _name(node.target) != f"{NAMESPACE}::dequantize_per_channel.default"):
            continue
        zero_points = node.args[2] if len(node.args) > 2 else None
        value = values.get(getattr(zero_points, "name", None))
        if value is not None and not bool(torch.count_nonzero(value)):
            node.args = node.args[:2] + (None,) + node.args[3:]
            changed = True
    if changed:
        program.graph_module.recompile()
