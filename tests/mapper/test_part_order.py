"""The order an op's parts are laid onto its tiles in (tessel.mapper.
part_order; docs/mapper.md, *Parts laid out by their multicasts*): a
convolution split over output channels and pixels puts the tiles that read
the same input window side by side, the lowering places every part where
the mapping's ``order`` says, and the program still computes what PyTorch
computes."""

from dataclasses import replace

import torch
from checked import assert_matches

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel.compiler.lower import lower_and_emit
from tessel.driver.pipeline import argument_roles
from tessel.ir import Attribute, Context, Module
from tessel.mapper import MapperOptions, graph, map_module
from tessel.mapper.apply import mapping_text
from tessel.mapper.cost import Placement
from tessel.mapper.part_order import (best_order, kept_read_hops, link_loads,
                                      order_parts, tile_of_part)
from tessel.mapper.space import Choice, Solution, placed

# ResNet-18's second convolution, its input padded.
CONV = """
func.func @f(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>, %y: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%y : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}
"""

# 4 output-channel groups by 8 x 8 blocks of pixels on tessel-16x16.
SPLIT = Placement(0, 0, 16, 16, (1, 4, 8, 8, 1, 1, 1), shared=True)


def conv_op():
    with Context():
        g = graph.from_module(Module.parse(CONV),
                              roles=["input", "weight", "output"])
    return g, g.ops[0]


def test_tile_of_part_follows_the_order():
    """Row-major over the parts, the last loop fastest, unless the order
    names the loops otherwise (as MappingAttr::getTileOfPart; the lit test
    tessel-convert-to-device.mlir, @ordered, pins the lowering's side)."""
    p = Placement(0, 0, 2, 2, (2, 2))
    assert [tile_of_part(p, i) for i in range(4)] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    q = replace(p, order=(1, 0))
    assert [tile_of_part(q, i) for i in range(4)] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    # At the rectangle's corner.
    assert tile_of_part(replace(q, row=3, col=5), 1) == (4, 5)


def test_tree_is_the_simulators_multicast_tree():
    """The ranking's tree, taken from each column's farthest readers, is
    the union of the XY routes from the leader to every reader, as the
    simulator routes a multicast (runtime.timing.xy_route)."""
    import random

    from tessel.mapper.part_order import _column_spans, _tree
    from tessel.runtime.timing import xy_route

    rng = random.Random(0)
    for _ in range(50):
        readers = {(rng.randrange(8), rng.randrange(8))
                   for _ in range(rng.randrange(1, 12))}
        leader = rng.choice(sorted(readers))
        routes = set().union(*(xy_route(leader, t) for t in readers))
        assert set(_tree(leader, _column_spans(readers))) == routes


def test_convolution_lays_its_output_channels_fastest():
    """In the loops' order the four tiles of a block of pixels lie four grid
    rows apart, each window's multicast down twelve links of a column;
    output channels fastest, they sit side by side in one row, and the
    busiest link carries a fifth less."""
    _, op = conv_op()
    arch = arch_model.load("tessel-16x16")
    order, busiest, own = best_order(op, SPLIT, arch)
    assert order == (0, 4, 5, 6, 2, 3, 1)
    loads = link_loads(op, replace(SPLIT, order=order), arch)
    assert busiest == max(loads.values())
    assert own == max(link_loads(op, SPLIT, arch).values())
    # Bytes over the op's four steps, leaders' DRAM routes included.
    assert (own, busiest) == (84_672, 67_968)
    assert sum(loads.values()) * 3 < sum(link_loads(op, SPLIT, arch).values()) * 2
    # Part (oc, oh, ow) = (c, 2, 3) for each output-channel group c.
    block = [((c * 8) + 2) * 8 + 3 for c in range(4)]
    assert [tile_of_part(SPLIT, i) for i in block] == \
        [(1, 3), (5, 3), (9, 3), (13, 3)]
    ordered = replace(SPLIT, order=order)
    assert [tile_of_part(ordered, i) for i in block] == \
        [(4, 12), (4, 13), (4, 14), (4, 15)]


def test_order_parts_writes_the_order_and_says_so():
    g, op = conv_op()
    arch = arch_model.load("tessel-16x16")
    candidate = placed(op, arch, SPLIT, True)
    assert candidate.placement.shared
    solution = Solution(method="test", choices=(Choice(0, candidate),),
                        objective=candidate.estimate.cycles,
                        bound=candidate.estimate.cycles, solve_seconds=0.0)
    ordered = order_parts(g, solution, arch)
    (choice,) = ordered.choices
    assert choice.placement.order == (0, 4, 5, 6, 2, 3, 1)
    assert "order = [0, 4, 5, 6, 2, 3, 1]" in mapping_text(choice)
    assert any("parts laid out in loop order [0, 4, 5, 6, 2, 3, 1]" in n
               and "busiest link" in n for n in ordered.notes)
    # Unshared, or writing a result kept on chip, it keeps the loops' order.
    unshared = replace(solution, choices=(Choice(0, replace(
        candidate, placement=replace(SPLIT, shared=False))),))
    assert order_parts(g, unshared, arch) is unshared
    kept = replace(solution, on_chip=frozenset({0}))
    assert order_parts(g, kept, arch) is kept


# MobileNetV2's depthwise convolution (its input padded by hand) and its
# projection, a 1 x 1 convolution reading the depthwise result.
DEPTHWISE_PROJECTION = """
func.func @f(%x: tensor<1x144x58x58xf32>, %k: tensor<144x3x3xf32>, %w: tensor<24x144x1x1xf32>, %y: tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32> {
  %e = tensor.empty() : tensor<1x144x56x56xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k : tensor<1x144x58x58xf32>, tensor<144x3x3xf32>) outs(%e : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%d, %w : tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>) outs(%y : tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32>
  return %r : tensor<1x24x56x56xf32>
}
"""


def test_a_reader_of_a_kept_result_is_laid_beside_its_holders():
    """The depthwise convolution, cut over rows, columns and channels (its
    four channel groups of a block of pixels side by side), keeps its
    result; the projection, cut over output channels, rows and columns,
    reads all of a block's channels. In the loops' own order the four
    tiles of a block lie four grid rows apart; output channels fastest,
    each sits on a tile holding a quarter of what it reads, the rest one
    to three tiles along its row."""
    with Context():
        g = graph.from_module(Module.parse(DEPTHWISE_PROJECTION),
                              roles=["input", "weight", "weight", "output"])
    arch = arch_model.load("tessel-16x16")
    depthwise, projection = g.ops
    holders = placed(depthwise, arch, Placement(0, 0, 16, 16, (1, 8, 8, 4, 1, 1)),
                     True)
    reader = placed(projection, arch,
                    Placement(0, 0, 16, 16, (1, 4, 8, 8, 1, 1, 1)), True)
    solution = Solution(method="test", choices=(Choice(0, holders), Choice(1, reader)),
                        objective=0, bound=0, solve_seconds=0.0,
                        on_chip=frozenset({0}))
    ordered = order_parts(g, solution, arch)
    assert ordered.choices[0] == solution.choices[0]
    laid = ordered.choices[1].placement
    assert laid.order == (0, 4, 5, 6, 2, 3, 1)
    # Block of pixels (2, 3): the depthwise parts (h, w, c) = (2, 3, c), the
    # projection's (f, h, w) = (f, 2, 3).
    held = {tile_of_part(holders.placement, (2 * 8 + 3) * 4 + c) for c in range(4)}
    assert held == {(4, 12), (4, 13), (4, 14), (4, 15)}
    assert {tile_of_part(laid, (f * 8 + 2) * 8 + 3) for f in range(4)} == held
    # Each block's four pieces (36 channels of 7 x 7 pixels) to its four
    # tiles in a row: 0 + 1 + 2 + 3 hops to the first and the last, 1 + 0
    # + 1 + 2 to the two between.
    writers = [(0, depthwise, holders.placement)]
    piece = 36 * 7 * 7 * 4
    assert kept_read_hops(projection, laid, writers) == 64 * piece * (6 + 4 + 4 + 6)
    assert kept_read_hops(projection, reader.placement, writers) == 67_737_600
    assert any("beside the tiles holding what it reads on chip: 67,737,600 -> "
               "9,031,680 bytes x hops" in n for n in ordered.notes)
    # Not kept, the result is read from DRAM: nothing is laid out for it.
    through_dram = replace(solution, on_chip=frozenset())
    assert not any("beside the tiles holding" in n
                   for n in order_parts(g, through_dram, arch).notes)


# MobileNetV2's expansion, a 1 x 1 convolution whose result the depthwise
# convolution reads through a padded window, then the projection.
EXPAND_DEPTHWISE_PROJECTION = """
func.func @f(%x: tensor<1x24x56x56xf32>, %v: tensor<144x24x1x1xf32>, %k: tensor<144x3x3xf32>, %w: tensor<24x144x1x1xf32>, %y: tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32> {
  %e = tensor.empty() : tensor<1x144x56x56xf32>
  %u = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %v : tensor<1x24x56x56xf32>, tensor<144x24x1x1xf32>) outs(%e : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %p = tessel.pad_view %u low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x144x56x56xf32> to tensor<1x144x58x58xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %k : tensor<1x144x58x58xf32>, tensor<144x3x3xf32>) outs(%e : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%d, %w : tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>) outs(%y : tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32>
  return %r : tensor<1x24x56x56xf32>
}
"""


def test_an_op_keeping_its_result_is_laid_out_for_its_readers():
    """The expansion keeps its result for the depthwise convolution, which
    keeps its own for the projection. Laid out in the loops' order, the
    depthwise convolution follows the expansion's layout (a block's four
    channel groups four grid rows apart), and the projection can only read
    its pieces from four rows; with the expansion's output channels
    fastest, the depthwise convolution keeps the loops' order, each block's
    channel groups side by side, and the projection lies beside them."""
    with Context():
        g = graph.from_module(Module.parse(EXPAND_DEPTHWISE_PROJECTION),
                              roles=["input", "weight", "weight", "weight", "output"])
    arch = arch_model.load("tessel-16x16")
    expand, depthwise, projection = (op for op in g.ops if not op.folded)
    cuts = {expand: (1, 4, 8, 8, 1, 1, 1), depthwise: (1, 8, 8, 4, 1, 1),
            projection: (1, 4, 8, 8, 1, 1, 1)}
    choices = tuple(Choice(op.index, placed(op, arch, Placement(0, 0, 16, 16, parts), True))
                    for op, parts in cuts.items())
    solution = Solution(method="test", choices=choices, objective=0, bound=0,
                        solve_seconds=0.0,
                        on_chip=frozenset({expand.index, depthwise.index}))
    ordered = order_parts(g, solution, arch)
    assert [c.placement.order for c in ordered.choices] == \
        [(0, 4, 5, 6, 2, 3, 1), (), (0, 4, 5, 6, 2, 3, 1)]
    assert any(n.startswith(f"#{expand.index} conv_2d_nchw_fchw: parts laid out in "
                            "loop order [0, 4, 5, 6, 2, 3, 1], the last fastest, so "
                            "that the ops reading its result on chip read it nearer")
               for n in ordered.notes), ordered.notes


def test_a_padded_window_is_paired_with_the_parts_it_spans():
    """A depthwise part's 3 x 3 window through the padded view reads its own
    block of the expansion's result and a row and a column of each
    neighbour's, in its channel group: nine of the expansion's parts,
    9 x 9 pixels of 36 channels in all."""
    from tessel.mapper.part_order import _kept_reads, part_coords

    with Context():
        g = graph.from_module(Module.parse(EXPAND_DEPTHWISE_PROJECTION),
                              roles=["input", "weight", "weight", "weight", "output"])
    expand, depthwise, _ = (op for op in g.ops if not op.folded)
    writer = Placement(0, 0, 16, 16, (1, 4, 8, 8, 1, 1, 1))
    reader = Placement(0, 0, 16, 16, (1, 8, 8, 4, 1, 1))
    pairs = _kept_reads(depthwise, reader, expand.index, expand, writer)
    part = (2 * 8 + 3) * 4 + 1          # rows 2, columns 3, channel group 1
    mine = {k: b for i, k, b in pairs if i == part}
    assert sum(mine.values()) == 36 * 9 * 9 * 4
    assert sorted(tuple(part_coords(writer.parts, k)[1:4]) for k in mine) == \
        [(1, h, w) for h in (1, 2, 3) for w in (2, 3, 4)]
    assert mine[(1 * 8 + 2) * 8 + 3] == 36 * 7 * 7 * 4
    # A corner part's window stops at the tensor's border.
    corner = {k: b for i, k, b in pairs if i == 0}
    assert sum(corner.values()) == 36 * 8 * 8 * 4


def test_convolution_in_another_order_matches_pytorch():
    """A convolution on tessel-4x4 split over output channels and rows,
    its mapping given an order by hand: every pass that sizes, loads and
    stores a part agrees on the tile the order puts it on (which tile that
    is, tessel-convert-to-device.mlir's @ordered pins), so the result
    matches PyTorch, and the CPU emulator the simulator bit for bit."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(8, 32, 3, padding=1, bias=False).eval()
    x = torch.randn(1, 8, 16, 16)
    model = fe.import_torch(conv, (x,), name="conv")
    written = []

    def mapping(module, target):
        map_module(module, target, "cpsat", MapperOptions(time_limit_s=10.0),
                   roles=argument_roles(module), legalized=True)
        for op in module.body.operations[0].regions[0].blocks[0].operations:
            if op.operation.name != "linalg.conv_2d_nchw_fchw":
                continue
            text = str(op.operation.attributes["tessel.mapping"])
            parts = [int(p) for p in text.split("parts = [")[1].split("]")[0].split(", ")]
            # The split loops, fastest first: the reverse of the loops' own.
            split = [l for l, p in enumerate(parts) if p > 1]
            assert len(split) >= 2, text
            order = [l for l, p in enumerate(parts) if p == 1] + split[::-1]
            # The mapper lays this small convolution out in the loops' order;
            # the test writes the reverse of its split loops after `steps`.
            assert "order" not in text and ", steps = [" in text, text
            head, tail = text.split(", steps = [", 1)
            steps, rest = tail.split("]", 1)
            text = (f"{head}, steps = [{steps}], order = "
                    f"[{', '.join(map(str, order))}]{rest}")
            op.operation.attributes["tessel.mapping"] = Attribute.parse(text)
            written.append(text)

    program = lower_and_emit(model, "tessel-4x4", mapping=mapping)
    assert written and "order = [" in written[0]
    assert_matches(program, model, [x.numpy()], conv(x).detach().numpy())
