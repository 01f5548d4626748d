"""The mapper's choice of the results that stay on chip
(tessel.mapper.on_chip): where it keeps one, and the reason it gives where
it does not."""

from dataclasses import replace

import torch

import tessel
from tessel import arch as arch_model
from tessel import frontend as fe
from tessel.compiler.lower import parse_imported
from tessel.ir import Context
from tessel.mapper import (MapperOptions, choose_epilogues, graph, legalize,
                           map_graph, solve)
from tessel.mapper.graph import Access, Op, Operand
from tessel.mapper.on_chip import (HELD_FRACTION, keep_on_chip, most_pieces, pieces,
                                   result_writer, unit_reshape)


def mapped(module, x, arch, **options):
    model = fe.import_torch(module.eval(), (x,), name="m")
    target = arch_model.load(arch)
    options = MapperOptions(time_limit_s=10, **options)
    with Context():
        m = parse_imported(model.mlir, target, model.signature)
        legalize(m)
        g = choose_epilogues(graph.from_module(
            m, roles=[a.kind for a in model.signature.args]), target, options)
    return g, map_graph(g, target, "cpsat", options)


def ffn(hidden):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(256, hidden), torch.nn.GELU(),
                               torch.nn.Linear(hidden, 256))


def test_intermediate_kept_and_output_not():
    g, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4")
    matmuls = [op.index for op in g.ops if op.name == "linalg.matmul"]
    assert solution.on_chip == {matmuls[0]}
    notes = "\n".join(solution.notes)
    assert "result on chip, 16384 bytes per tile on 16 tiles" in notes
    assert f"#{matmuls[1]} matmul: result to DRAM: its result is a model output" in notes


def test_not_kept_where_readers_read_many_small_pieces():
    # 8 rows: the second matmul reads each window from many tiles' slices.
    g, solution = mapped(ffn(512), torch.randn(8, 256), "tessel-16x16")
    assert not solution.on_chip
    assert f"more than the {most_pieces(arch_model.load('tessel-16x16'))} " \
           "whose setups cost what a DRAM load does" in "\n".join(solution.notes)


def _op(index, shape, output_access, input_shape=None, input_access=None):
    """An op over ``len(shape)`` parallel loops writing ``shape`` (and
    reading ``input_shape`` of op 0's result, if given)."""
    operands = [Operand(shape=shape, elem_bytes=4, access=output_access,
                        is_output=True, read=False)]
    if input_shape:
        operands.insert(0, Operand(shape=input_shape, elem_bytes=4,
                                   access=input_access, source=("op", 0),
                                   padded=input_shape != shape))
    return Op(index=index, name="linalg.generic", kind="elementwise",
              loops=shape, iterators=("parallel",) * len(shape),
              operands=tuple(operands))


def test_pieces_a_step_reads():
    rows = (Access(((0, 1),)), Access(((1, 1),)))
    writer = _op(0, (64, 64), rows)
    reader = _op(1, (64, 64), rows, (64, 64), rows)
    read = reader.operands[0]
    # Written in 16 x 64 steps, read in 64 x 8 windows: 4 slices a window.
    assert pieces(writer, (16, 64), (64, 8), read) == 4
    assert pieces(writer, (64, 64), (16, 16), read) == 1
    # A 3 x 3 window's halo (a padded read): a slice more each side.
    window = (Access(((0, 1), (2, 1))), Access(((1, 1), (3, 1))))
    conv = Op(index=1, name="linalg.generic", kind="window",
              loops=(64, 64, 3, 3),
              iterators=("parallel", "parallel", "reduction", "reduction"),
              operands=(Operand(shape=(66, 66), elem_bytes=4, access=window,
                                source=("op", 0), padded=True),))
    assert pieces(writer, (16, 16), (16, 16, 3, 3), conv.operands[0]) == 9
    # The whole padded tensor: its border is not read.
    assert pieces(writer, (64, 64), (64, 64, 3, 3), conv.operands[0]) == 1


def test_pieces_through_a_reshape_of_unit_dimensions():
    rows = (Access(((0, 1),)), Access(((1, 1),)))
    writer = _op(0, (64, 64), rows)
    # Read as 1 x 64 x 64 (a batch matmul's view of a matrix): the larger
    # dimensions pair up in order, as if read as it is.
    batched = (Access(((0, 1),)), Access(((1, 1),)), Access(((2, 1),)))
    read = Operand(shape=(1, 64, 64), elem_bytes=4, access=batched,
                   source=("op", 0))
    assert unit_reshape((1, 64, 64), (64, 64))
    assert pieces(writer, (16, 64), (1, 64, 8), read) == 4
    assert pieces(writer, (64, 64), (1, 16, 16), read) == 1
    # 64 x 64 as 8 x 8 x 64 splits a dimension: no box of one is one of
    # the other.
    assert not unit_reshape((8, 8, 64), (64, 64))


class _Heads(torch.nn.Module):
    """Scores of 4 heads, then each head's rows scaled: the batch matmul's
    4 x 64 x 64 result read as 1 x 4 x 64 x 64."""

    def forward(self, q, k):
        s = torch.bmm(q, k.transpose(1, 2))
        return torch.softmax(s.unsqueeze(0), dim=-1) * 2.0


def test_reads_through_a_reshape_of_unit_dimensions_are_not_an_obstacle():
    torch.manual_seed(0)
    model = fe.import_torch(_Heads().eval(), (torch.randn(4, 64, 32),
                                              torch.randn(4, 64, 32)), name="m")
    target = arch_model.load("tessel-4x4")
    with Context():
        m = parse_imported(model.mlir, target, model.signature)
        legalize(m)
        g = choose_epilogues(graph.from_module(
            m, roles=[a.kind for a in model.signature.args]), target,
            MapperOptions(time_limit_s=10))
    solution = map_graph(g, target, "cpsat", MapperOptions(time_limit_s=10))
    # The batch matmul's reader reads it as 1 x 4 x 64 x 64: what decides
    # is how many pieces a step reads, not the reshape.
    bmm = next(op for op in g.ops if op.name == "linalg.batch_matmul")
    note = next(n for n in solution.notes if n.startswith(f"{bmm.label()}:"))
    assert "reshape" not in note and ("pieces a step" in note or "on chip" in note)


def test_not_kept_where_its_part_takes_too_much_sram():
    # 2048 x 4096 floats over 16 tiles: 2 MiB a tile, far above an eighth
    # of 256 KiB.
    g, solution = mapped(ffn(4096), torch.randn(2048, 256), "tessel-4x4")
    assert not solution.on_chip
    sram = arch_model.load("tessel-4x4").tile.sram.bytes
    assert any("result to DRAM" in n and f"of {sram} bytes of SRAM" in n
               for n in solution.notes), solution.notes
    assert sram // HELD_FRACTION < 2048 * 4096 * 4 // 16


def test_off_nothing_is_kept():
    _, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4",
                         on_chip=False)
    assert not solution.on_chip


def test_over_pipeline_stages_nothing_is_kept():
    # The FFN's mapping, its second matmul moved to a stage of its own.
    arch = arch_model.load("tessel-4x4")
    g, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4",
                         on_chip=False)
    assert keep_on_chip(g, solution, arch).on_chip
    last = max(c.op for c in solution.choices)
    staged = replace(solution, choices=tuple(
        replace(c, stage=1) if c.op == last else c for c in solution.choices))
    assert keep_on_chip(g, staged, arch) == staged


def test_the_live_set_is_chosen_whole():
    # On one tile of 1000 bytes (a quarter for results held at once): A
    # (150 bytes) is live over ops 0-3, B (120) over 1-2, C (120) over 2-3.
    # In program order A alone would stay (150 bytes); B and C together
    # hold more and fit at every op (240).
    from tessel.mapper.on_chip import _budgets, _choose, _Held

    rows = (Access(((0, 1),)), Access(((1, 1),)))
    tile = frozenset({(0, 0)})
    held = [_Held(_op(i, (8, 8), rows), part, last, tile)
            for i, part, last in ((0, 150, 3), (1, 120, 2), (2, 120, 3))]
    assert _choose(held, _budgets(held), 1000) == {1, 2}
    # On another tile, B's writer no longer overlaps: A and B fit together.
    held[1] = _Held(held[1].op, 120, 2, frozenset({(0, 1)}))
    assert _choose(held, _budgets(held), 1000) == {0, 1}


def test_writer_and_reader_of_a_kept_result_costed_as_they_run():
    # The FFN's first matmul keeps its result: it stores nothing, and the
    # second loads it from the tiles holding it, not from DRAM. The
    # placements and steps stay as CP-SAT chose them.
    g, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4")
    through_dram = {c.op: c for c in solve(g, arch_model.load("tessel-4x4"), "cpsat",
                                           MapperOptions(time_limit_s=10)).choices}
    writer, reader = [op.index for op in g.ops if op.name == "linalg.matmul"]
    assert solution.on_chip == {writer}
    costed = {c.op: c for c in solution.choices}
    for i in (writer, reader):
        kept, stored = costed[i], through_dram[i]
        assert kept.placement == stored.placement
        assert kept.candidate.estimate.steps == stored.candidate.estimate.steps
        assert kept.cycles < stored.cycles
        assert kept.candidate.estimate.dram_bytes < stored.candidate.estimate.dram_bytes
    assert solution.latency < sum(c.cycles for c in through_dram.values())


class _ConvPool(torch.nn.Module):
    """A network's stem: a strided convolution, then a max pooling of it."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 7, 2, 3, bias=False)

    def forward(self, x):
        return torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 3, 2, 1)


def test_a_pooling_cut_again_to_read_its_input_on_chip():
    # CP-SAT cuts the pooling over channels, which would read the
    # convolution's result in more pieces than a DRAM round trip costs; cut
    # over columns, as the convolution is, it reads it kept, predicted
    # faster (simulated: 5,984 -> 4,927 cycles).
    torch.manual_seed(0)
    g, solution = mapped(_ConvPool(), torch.randn(1, 3, 64, 64), "tessel-4x4")
    conv = next(op.index for op in g.ops if op.kind == "conv")
    pool = next(op.index for op in g.ops if op.name == "linalg.pooling_nchw_max")
    assert solution.on_chip == {conv}
    assert next(c for c in solution.choices if c.op == pool).placement.parts == \
        (1, 1, 1, 16, 1, 1)
    assert any(note.startswith(f"#{pool} pooling_nchw_max: reads #{conv} "
                               "conv_2d_nchw_fchw's result on chip, cut 1x1x1x16x1x1, ")
               and "(CP-SAT: cut 1x16x1x1x1x1, steps " in note
               for note in solution.notes)


class _ConvPoolPool(_ConvPool):
    """The stem, then an average pooling of its max pooling."""

    def forward(self, x):
        return torch.nn.functional.avg_pool2d(super().forward(x), 3, 1, 1)


def test_a_pooling_cut_again_reads_a_pooling_cut_again():
    # The max pooling is cut again to read the convolution's result kept;
    # the average pooling is then weighed against the max pooling as cut
    # again, not as CP-SAT placed it, and reads its result kept too.
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)
    g, solution = mapped(_ConvPoolPool(), x, "tessel-4x4")
    conv = next(op.index for op in g.ops if op.kind == "conv")
    first = next(op.index for op in g.ops if op.name == "linalg.pooling_nchw_max")
    second = next(op.index for op in g.ops if op.name == "linalg.pooling_nchw_sum")
    assert solution.on_chip == {conv, first}
    cut = next(c for c in solution.choices if c.op == second).placement.parts
    assert any(note.startswith(f"#{second} pooling_nchw_sum: reads #{first} "
                               f"pooling_nchw_max's result on chip, cut "
                               f"{'x'.join(map(str, cut))}, ")
               for note in solution.notes), solution.notes
    result = tessel.compile_and_simulate(_ConvPoolPool(), (x,), arch="tessel-4x4",
                                         mapper="cpsat", trace=False)
    assert result.check.passed, str(result.check)



class _ResidualNorm(torch.nn.Module):
    """A transformer's post-norm: a matmul's result plus the input, then a
    layer norm (its mean, its variance and the normalization, each reading
    the sum)."""

    def __init__(self, hidden):
        super().__init__()
        self.fc = torch.nn.Linear(hidden, hidden)
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, x):
        return self.norm(x + self.fc(x))


def test_a_result_several_reductions_read_is_weighed_with_all_of_them():
    # CP-SAT cuts the normalization over columns, so the sum would go to
    # DRAM for the pieces it reads; weighed with all three readers, the
    # normalization is cut as the matmul is and the sum stays on chip.
    torch.manual_seed(0)
    x = torch.randn(128, 256)
    g, solution = mapped(_ResidualNorm(256), x, "tessel-16x16")
    matmul = next(op.index for op in g.ops if op.kind == "matmul")
    # The residual add runs on the matmul's slices (its epilogue).
    writer = result_writer(g.ops[matmul]).index
    readers = [op.index for op in g.ops if any(
        o.source == ("op", writer) for o in op.operands)]
    assert len(readers) == 3
    assert matmul in solution.on_chip
    for reader in readers:
        assert any(note.startswith(f"#{reader} generic: reads #{matmul} matmul's "
                                   "result on chip, ")
                   and note.endswith("cycles for the 4 ops")
                   for note in solution.notes), solution.notes
    norm = next(c for c in solution.choices if c.op == readers[-1])
    assert norm.placement.parts == (16, 16)
    result = tessel.compile_and_simulate(_ResidualNorm(256), (x,), arch="tessel-16x16",
                                         mapper="cpsat", trace=False)
    assert result.check.passed, str(result.check)


class _DepthwiseProjection(torch.nn.Module):
    """MobileNetV2's depthwise convolution and its projection, a 1 x 1
    convolution to a sixth of the channels."""

    def __init__(self, channels):
        super().__init__()
        self.depthwise = torch.nn.Conv2d(channels, channels, 3, 1, 1,
                                         groups=channels, bias=False)
        self.project = torch.nn.Conv2d(channels, channels // 6, 1, bias=False)

    def forward(self, x):
        return self.project(torch.relu(self.depthwise(x)))


def test_a_1x1_convolution_cut_again_to_read_its_input_on_chip():
    # MobileNetV2's block at a small size: CP-SAT cuts the projection over
    # output channels and columns, which would read the depthwise result in
    # more pieces than a DRAM round trip costs; cut over rows and columns,
    # as the depthwise convolution is, it reads it kept, predicted faster
    # (simulated: 5,018 -> 4,624 cycles).
    from tessel.zoo import models

    torch.manual_seed(0)
    block = models.InvertedResidual(8, 4)
    x = torch.randn(1, 8, 16, 16)
    g, solution = mapped(block, x, "tessel-4x4")
    depthwise = next(op.index for op in g.ops if op.kind == "window")
    project = max(op.index for op in g.ops if op.kind == "conv")
    assert depthwise in solution.on_chip
    assert any(note.startswith(f"#{project} conv_2d_nchw_fchw: reads #{depthwise} "
                               "depthwise_conv_2d_nchw_chw's result on chip, cut "
                               "1x1x8x2x1x1x1, ")
               for note in solution.notes), solution.notes
    result = tessel.compile_and_simulate(block.eval(), (x,), arch="tessel-4x4",
                                         mapper="cpsat", trace=False)
    assert result.check.passed, str(result.check)


def test_a_convolution_reading_many_pieces_keeps_the_limit():
    # Reading the depthwise result kept in 16 pieces a step, the projection
    # was predicted faster (7,956 -> 6,366 cycles for the two) and ran 2.3
    # times slower: a convolution's pieces fan out to all its output
    # channels' tiles. The result goes to DRAM, and the note says why.
    torch.manual_seed(0)
    g, solution = mapped(_DepthwiseProjection(144), torch.randn(1, 144, 28, 28),
                         "tessel-16x16")
    assert solution.on_chip == frozenset()
    depthwise = next(op.index for op in g.ops if op.kind == "window")
    assert any(note.startswith(f"#{depthwise} depthwise_conv_2d_nchw_chw: result to "
                               "DRAM: ") and "in 16 pieces a step" in note
               for note in solution.notes), solution.notes


def test_only_a_convolution_with_no_window_is_weighed_again():
    # An unpadded 3 x 3 convolution reads through a window, as a padded
    # one does; a 1 x 1 one reads each element of its box once.
    from tessel.mapper.on_chip import _realigned

    def ops(kernel):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 1, bias=False),
                                    torch.nn.Conv2d(8, 8, kernel, bias=False))
        g, _ = mapped(model, torch.randn(1, 8, 16, 16), "tessel-4x4")
        return [op for op in g.ops if op.kind == "conv"]

    writer, reader = ops(1)
    assert _realigned(reader, writer)
    writer, reader = ops(3)
    assert not _realigned(reader, writer)
