"""The cost model's crowded weight loads (docs/mapper.md, *Crowded
channels*): which convolutions they apply to, the later loads' closed form,
and the order they give the steps of ResNet-18's 512-channel convolution on
tessel-16x16, which the simulator runs faster in eight steps than in two
(29,332 against 34,603 cycles, docs/spatial.md)."""

import pytest

from tessel import arch as arch_model
from tessel.ir import Context, Module
from tessel.mapper import graph
from tessel.mapper.cost import (Placement, _estimate_steps, _windows_overlap,
                                dram_link, later_transfer_cycles, one_transfer_rate,
                                transfer_cycles)


def conv(channels: int, size: int, kernel: int, stride: int) -> str:
    out = (size - kernel) // stride + 1
    x = f"tensor<1x{channels}x{size}x{size}xf32>"
    w = f"tensor<{channels}x{channels}x{kernel}x{kernel}xf32>"
    y = f"tensor<1x{channels}x{out}x{out}xf32>"
    return f"""
func.func @f(%x: {x}, %w: {w}, %y: {y}) -> {y} {{
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%x, %w : {x}, {w}) outs(%y : {y}) -> {y}
  return %r : {y}
}}
"""


MATMUL = """
func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""


def op_of(text: str):
    with Context():
        return graph.from_module(Module.parse(text),
                                 roles=["input", "weight", "output"]).ops[0]


@pytest.mark.parametrize("text, overlap", [
    (conv(4, 9, 3, 1), True),        # 3 x 3, stride 1
    (conv(4, 9, 3, 2), True),        # 3 x 3, stride 2
    (conv(4, 8, 1, 1), False),       # 1 x 1
    (conv(4, 32, 16, 16), False),    # disjoint 16 x 16 patches (ViT's)
    (MATMUL, False),
])
def test_windows_overlap(text, overlap):
    assert _windows_overlap(op_of(text)) is overlap


def test_later_loads_hide_their_fixed_cost_only_where_crowded():
    arch = arch_model.load("tessel-16x16")
    alone = one_transfer_rate(arch)
    assert alone == 32
    # Uncontended: a transfer as any other.
    assert later_transfer_cycles(arch, 4096, alone, 3) == transfer_cycles(arch, 4096, alone, 3)
    # Crowded, large: its share of the channel, its fixed cost hidden.
    assert later_transfer_cycles(arch, 18432, 1.5, 8) == 2 + 18432 / 1.5
    # Crowded, small: no faster than one transfer alone.
    assert later_transfer_cycles(arch, 64, 1.5, 8) == transfer_cycles(arch, 64, alone, 8)


def test_the_512_channel_convolution_takes_eight_steps():
    arch = arch_model.load("tessel-16x16")
    op = op_of(conv(512, 9, 3, 1))
    placement = Placement(0, 0, 16, 16, (1, 256, 1, 1, 1, 1, 1), shared=True)
    part = (1, 2, 7, 7, 512, 3, 3)
    link = dram_link(arch, placement)

    def cycles(channel_step):
        steps = (1, 2, 7, 7, channel_step, 3, 3)
        return _estimate_steps(op, arch, placement, part, steps, False, 0, True,
                               None, link).cycles

    # Simulated: 34,603 in two steps, 29,332 in eight.
    two, eight = cycles(256), cycles(64)
    assert eight < two
    assert abs(two - 34603) / 34603 < 0.05
    assert abs(eight - 29332) / 29332 < 0.05
