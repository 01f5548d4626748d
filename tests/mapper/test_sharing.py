"""Shared loads in the mapper: which tiles read the same slices, what
sharing them saves in the cost model, that the mappers choose it where it
pays and write it into the mapping, that the program the lowering makes of
it reads each slice from DRAM once and still computes what PyTorch
computes, and that the cost model predicts it closely."""

import numpy as np
import pytest
import torch

from tessel import frontend as fe
from tessel.driver import compile_imported
from tessel.ir import Context, Module
from tessel.mapper import explain, graph, solve
from tessel.mapper.apply import mapping_text
from tessel.mapper.cost import Placement, estimate, halo_fraction, sharers
from tessel.runtime.simulator import simulate

from test_search import small_arch

MATMUL = """
func.func @f(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
"""


def _matmul():
    with Context():
        return graph.from_module(Module.parse(MATMUL)).ops[0]


def test_sharers_are_the_parts_of_the_loops_an_input_does_not_index():
    op = _matmul()
    a, b = op.operands[:2]
    # Loops (m, n, k): A varies with m and k, B with k and n.
    assert (sharers(a, (4, 4, 1), op.loops), sharers(b, (4, 4, 1), op.loops)) == (4, 4)
    assert (sharers(a, (16, 1, 1), op.loops), sharers(b, (16, 1, 1), op.loops)) == (1, 16)
    # 256 rows in 3 parts are 86, 86 and 84: B's loads pair up by position
    # (as tessel-share-loads pairs them) while the short part takes as many
    # steps as the others, here of 86 or 43 rows, not of 42 (3 against 2).
    for step, count in ((86, 3), (43, 3), (42, 1)):
        assert sharers(b, (3, 1, 1), op.loops, (step, 256, 128)) == count
    # Without steps, whether the split could share at all: it could.
    assert sharers(b, (3, 1, 1), op.loops) == 3
    # One multicast carries at most 58 tiles: 64 go as two groups of 32.
    assert sharers(b, (64, 1, 1), op.loops) == 32


CONV = """
func.func @f(%x: tensor<1x{c}x{h2}x{h2}xf32>, %w: tensor<8x{c}x3x3xf32>, %o: tensor<1x8x{h}x{h}xf32>) -> tensor<1x8x{h}x{h}xf32> {{
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%x, %w : tensor<1x{c}x{h2}x{h2}xf32>, tensor<8x{c}x3x3xf32>) outs(%o : tensor<1x8x{h}x{h}xf32>) -> tensor<1x8x{h}x{h}xf32>
  return %r : tensor<1x8x{h}x{h}xf32>
}}
"""


def _conv(channels, height):
    with Context():
        text = CONV.format(c=channels, h=height, h2=height + 2)
        return graph.from_module(Module.parse(text)).ops[0]


def test_overlapping_windows_are_read_once_where_cutting_pays():
    """A 3x3 convolution split 2 x 2 over its output rows and columns, one
    step per part: each tile's input window (6 x 6 of a 10 x 10 padded
    image) overlaps its neighbours', and the four windows hold 144 of the
    image's 100 pixels. tessel-share-loads reads the overlap once where
    that saves a fifth of the reads and, per window, what one transfer
    moves in its setup and DRAM latency ((20 + 100) x 32 = 3,840 bytes on
    tessel-4x4's figures): with 96 channels a window saves 44 x 96 x 4 =
    16,896 / 4 = 4,224 bytes; with 8 channels only 352."""
    arch = small_arch(4, 4)
    parts = (1, 1, 2, 2, 1, 1, 1)
    wide, narrow = _conv(96, 8), _conv(8, 8)
    steps = tuple(l // p for l, p in zip(wide.loops, parts))
    x = wide.operands[0]
    assert halo_fraction(arch, x, wide.loops, parts, steps) == pytest.approx(100 / 144)
    assert halo_fraction(arch, narrow.operands[0], narrow.loops, parts,
                         steps) == 1.0
    # Cut into two steps per part, a tile's windows no longer meet its
    # neighbours' at the same step.
    halved = steps[:2] + (2,) + steps[3:]
    assert halo_fraction(arch, x, wide.loops, parts, halved) == 1.0
    # The estimate's DRAM bytes: the image once (the weights, read by all
    # four tiles, once too); the output, an argument, loaded and stored once.
    e = estimate(wide, arch, Placement(0, 0, 2, 2, parts, shared=True))
    assert e.steps == steps
    image, weights, out = (o.nbytes for o in wide.operands)
    assert e.dram_bytes == image + weights + 2 * out


def test_a_shared_placement_reads_each_slice_once():
    op = _matmul()
    arch = small_arch(4, 4)
    plain = Placement(0, 0, 4, 4, (4, 4, 1))
    shared = Placement(0, 0, 4, 4, (4, 4, 1), shared=True)
    e_plain, e_shared = estimate(op, arch, plain), estimate(op, arch, shared)
    a, b, c = (o.nbytes for o in op.operands)
    # Unshared, every grid row reads all of B and every column all of A;
    # shared, each once, whatever steps each picks (the reduction is cut
    # into steps that keep the output in SRAM). The output, an argument, is
    # loaded and stored once either way.
    assert e_plain.dram_bytes == 4 * a + 4 * b + 2 * c
    assert e_shared.dram_bytes == a + b + 2 * c
    assert e_shared.cycles < e_plain.cycles


def test_the_mapper_chooses_sharing_and_writes_it():
    with Context():
        g = graph.from_module(Module.parse(MATMUL))
    arch = small_arch(4, 4)
    solution = solve(g, arch, "cpsat")
    (choice,) = solution.choices
    assert choice.placement.shared
    assert mapping_text(choice).endswith(", shared>")
    lines = explain.table(g, solution, arch).splitlines()
    assert " S " in next(line for line in lines if line.startswith("#0 matmul"))
    assert "S: slices several tiles read loaded once and multicast" in lines[-1]


def _dram_reads(program):
    """Bytes of DRAM the program's transfers read."""
    from tessel.runtime.isa import DTYPE_SIZE
    total = 0
    for instrs in program.decoded().values():
        for ins in instrs:
            if ins.op in ("dma", "dma_multicast") and ins["src"].kind == "dram":
                n = DTYPE_SIZE[ins["dtype"]]
                for s in ins["sizes"]:
                    n *= s
                total += n
    return total


def test_shared_matmul_reads_its_operands_once_and_matches_pytorch():
    torch.manual_seed(0)
    module = torch.nn.Linear(256, 256, bias=False).eval()
    x = torch.randn(128, 256)
    model = fe.import_torch(module, (x,))
    golden = module(x).detach().numpy()
    programs = {mapper: compile_imported(model, "tessel-4x4", mapper=mapper)
                for mapper in ("default", "cpsat")}
    for mapper, program in programs.items():
        multicasts = sum(ins.op == "dma_multicast"
                         for instrs in program.decoded().values() for ins in instrs)
        assert multicasts > 0, mapper
        result = simulate(program, {program.inputs[0]: x.numpy()})
        np.testing.assert_allclose(result.outputs[program.outputs[0]], golden,
                                   rtol=1e-5, atol=1e-5)
    # The CP-SAT mapping splits rows and columns (SUMMA): x and the weight
    # are each read from DRAM once.
    assert _dram_reads(programs["cpsat"]) == (128 * 256 + 256 * 256) * 4


def test_cost_model_of_a_shared_matmul_within_ten_percent_of_the_simulator():
    # The prediction of the CP-SAT mapping (its matmul shared) against the
    # simulated program: -4.7 % on tessel-4x4 and +5.5 % on tessel-16x16
    # when measured; the bound stated here is 10 %.
    from tessel import arch as arch_model
    from tessel.compiler.lower import parse_imported
    from tessel.mapper import legalize

    torch.manual_seed(0)
    module = torch.nn.Linear(256, 256, bias=False).eval()
    model = fe.import_torch(module, (torch.randn(128, 256),))
    for name in ("tessel-4x4", "tessel-16x16"):
        arch = arch_model.load(name)
        with Context():
            m = parse_imported(model.mlir, arch, model.signature)
            legalize(m)
            g = graph.from_module(m, roles=[a.kind for a in model.signature.args])
        solution = solve(g, arch, "cpsat")
        assert any(c.placement.shared for c in solution.choices)
        cycles = simulate(compile_imported(model, name, mapper="cpsat"),
                          numerics=False).cycles
        assert abs(solution.latency - cycles) <= 0.10 * cycles, (name, solution.latency,
                                                                 cycles)



def test_a_weight_streaming_matmul_is_cut_as_the_grid_is():
    # BERT-base's second FFN matmul on its 128 tokens (128 x 3072 -> 768)
    # on tessel-16x16 streams 9.4 MB of weights. Cut 16 x 16, part (i, j)
    # on tile (i, j), the tiles sharing a weight slice are a column of the
    # grid and tessel-share-loads spreads their leaders evenly over the 16
    # DRAM channels: simulated 27,981 cycles (predicted 28,402). Cut 8 x 32
    # (two sharing sets per column of tiles, its channels unevenly loaded)
    # it takes 37,666 (predicted 35,104); costed at the busiest tile's DRAM
    # share, the 16 x 16 cut was predicted 35,314 and not chosen.
    from tessel import arch as arch_model
    from tessel.compiler.lower import parse_imported
    from tessel.mapper import legalize

    module = torch.nn.Linear(3072, 768).eval()
    model = fe.import_torch(module, (torch.randn(128, 3072),))
    arch = arch_model.load("tessel-16x16")
    with Context():
        m = parse_imported(model.mlir, arch, model.signature)
        legalize(m)
        g = graph.from_module(m, roles=[a.kind for a in model.signature.args])
    solution = solve(g, arch, "cpsat")
    (matmul,) = [c for c in solution.choices if g.ops[c.op].kind == "matmul"]
    assert matmul.placement.shared
    assert matmul.placement.parts == (16, 16, 1)


def test_a_leader_signals_each_receiver_before_the_first_step():
    # The small CNN's first convolution (3 -> 16 channels, 32 x 32, padding
    # 1) on tessel-16x16: over 64 tiles (8 x 8 pixel blocks) each weight
    # slice goes from two leaders to 31 others each (a multicast carries
    # 58 at most), whose first step waits for the leader's credits and
    # deliveries, one instruction per receiver; over 256 tiles (16 filters
    # x 4 x 4 blocks) each slice goes to 15. Simulated alone:
    # 1,111 and 803 cycles. The first step's handshake counts the receivers,
    # so the model ranks them so too.
    from tessel import arch as arch_model
    from tessel.compiler.lower import parse_imported
    from tessel.mapper import legalize

    module = torch.nn.Conv2d(3, 16, 3, padding=1, bias=False).eval()
    model = fe.import_torch(module, (torch.randn(1, 3, 32, 32),))
    arch = arch_model.load("tessel-16x16")
    with Context():
        m = parse_imported(model.mlir, arch, model.signature)
        legalize(m)
        conv = next(op for op in graph.from_module(m).ops if op.kind == "conv")
    by_filters = estimate(conv, arch, Placement(0, 0, 16, 16, (1, 16, 4, 4, 1, 1, 1),
                                                shared=True))
    by_pixels = estimate(conv, arch, Placement(0, 0, 4, 16, (1, 1, 8, 8, 1, 1, 1),
                                               shared=True))
    assert by_filters.cycles < by_pixels.cycles
