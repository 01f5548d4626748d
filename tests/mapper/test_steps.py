"""The mapper's step sizes: the SRAM it counts per step is what
tessel-tile-for-sram counts (the same examples as
test/Transforms/tessel-tile-for-sram.mlir give the same steps), and the
steps it writes into the mapping are the cheapest it costed."""

import dataclasses
from pathlib import Path

from tessel import arch as arch_model
from tessel.runtime.timing import vector_cycles

from tessel.ir import Context, Module
from tessel.mapper import graph
from tessel.mapper.cost import (Placement, _estimate_steps, dram_link,
                                early_store_pieces, estimate, runs_in_issue_order,
                                scratch_bytes, spread_store_pieces, sram_step_bytes,
                                step_candidates, step_sizes, transfer_cycles)

from test_search import small_arch

# The lit test's SRAM: 16 KiB per tile.
SRAM = 16384

ELEMENTWISE = """
func.func @f(%a: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    %y = arith.mulf %x, %two : f32
    %z = arith.addf %y, %in : f32
    linalg.yield %z : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
"""

CONV = """
func.func @f(%x: tensor<1x2x10x10xf32>, %w: tensor<16x2x3x3xf32>, %y: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x10x10xf32>, tensor<16x2x3x3xf32>) outs(%y : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}
"""


MATMUL = """
func.func @f(%a: tensor<256x128xf32>, %b: tensor<128x128xf32>, %c: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x128xf32>) outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}
"""


def _only_op(text):
    with Context():
        return graph.from_module(Module.parse(text)).ops[0]


def test_elementwise_temporaries_as_tile_for_sram_counts_them():
    op = _only_op(ELEMENTWISE)
    # Three body ops and the captured constant: four step-sized temporaries.
    assert (op.vector_ops, op.captured) == (3, 1)
    assert scratch_bytes(op, (16, 32)) == 4 * 4 * 16 * 32
    assert step_sizes(op, op.loops, SRAM) == (16, 32)


GELU = """
func.func @f(%a: tensor<32x32xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %sqrt2 = arith.constant 1.41421354 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<32x32xf32>, tensor<32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %0 = arith.divf %s, %sqrt2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %2, %half : f32
    %4 = arith.mulf %s, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
"""


def test_gelu_counts_as_the_one_instruction_it_lowers_to():
    # The bias's add and GELU's five ops, which tessel-lower-to-instructions
    # runs as one `gelu` (tessel-lower-to-instructions.mlir, @gelu).
    # Its constants are the instruction's own: no fills. The SRAM it may
    # take is still bounded as tessel-tile-for-sram bounds it, by the six
    # body ops and three constants.
    op = _only_op(GELU)
    assert (op.vector_ops, op.temporaries, op.captured) == (2, 6, 3)
    # Another constant than sqrt(2) in f32 is another function: five ops,
    # its constants immediates.
    other = _only_op(GELU.replace("1.41421354", "1.5"))
    assert (other.vector_ops, other.temporaries) == (6, 6)


def test_convolution_needs_no_scratch_as_tile_for_sram_counts_it():
    # Its rows stream in place, in groups (tessel-tile-for-sram's
    # conv_in_place case): two steps' operands, 2 x 6048 bytes, fit 16 KiB.
    op = _only_op(CONV)
    assert scratch_bytes(op, op.loops) == 0
    assert step_sizes(op, op.loops, SRAM) == op.loops


def _whole_part(op, arch, steps):
    """The estimate of ``op`` run whole on one tile in steps of ``steps``."""
    placement = Placement(0, 0, 1, 1, tuple(1 for _ in op.loops))
    return _estimate_steps(op, arch, placement, op.loops, steps,
                           resident=False, resident_bytes=0, overlap_dma=True,
                           program_tiles=None, link=dram_link(arch, placement))


def test_mapper_keeps_a_weight_stationary_stream_whole_when_cheaper():
    # tessel-tile-for-sram's own rule halves this matmul's 256 streamed rows
    # twice (64 rows a step); keeping them whole pays each block's fill and
    # drain a quarter as often, and the cost model finds it cheaper.
    op = _only_op(MATMUL)
    arch = small_arch(1, 1)
    placement = Placement(0, 0, 1, 1, (1, 1, 1))
    own = step_sizes(op, op.loops, arch.tile.sram.bytes)
    assert own[0] < 256
    candidates = step_candidates(op, op.loops, arch.tile.sram.bytes,
                                 array_rows=arch.tile.mac.rows)
    assert candidates[0] == own
    costs = {steps: _whole_part(op, arch, steps).cycles for steps in candidates}
    chosen = estimate(op, arch, placement)
    assert chosen.steps[0] == 256
    assert chosen.cycles == min(costs.values()) < costs[own]


def test_matmul_is_offered_a_short_last_step():
    # Beside each even cut the same with the streamed loop
    # (the rows) an eighth shorter: the rest is a last step of its own,
    # whose blocks, and the last piece of its store, are small
    # (tessel-early-stores).
    op = _only_op(MATMUL)
    arch = small_arch(1, 1)
    own = step_sizes(op, op.loops, arch.tile.sram.bytes)
    loop = 0
    assert 1 < own[loop] < op.loops[loop]
    shorter = list(own)
    shorter[loop] -= own[loop] // 8
    candidates = step_candidates(op, op.loops, arch.tile.sram.bytes,
                                 array_rows=arch.tile.mac.rows, short_last=True)
    assert tuple(shorter) in candidates
    # Not for an op with an epilogue, whose result leaves whole after it.
    assert tuple(shorter) not in step_candidates(
        op, op.loops, arch.tile.sram.bytes, array_rows=arch.tile.mac.rows)
    # The rest is a step of its own, shorter than the others.
    assert 0 < op.loops[loop] % shorter[loop] < shorter[loop]


# A one-tile arch of 768 KiB whose four DMA channels make no second group for
# its three DRAM channels of 16 B/cycle: stores and loads share channels.
ARCH_768K = Path(__file__).resolve().parents[2] / "bench/archs/systolic-32x32-768k.yaml"


def _matmul(m, k, n):
    return f"""
func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def test_matmul_is_offered_longer_streams():
    # BERT's FFN2 (512 x 3072 -> 768) on the 768 KiB tile: halving alone
    # never reaches 512-row streams over 128 columns; the longer-stream
    # variant of 256 x 192 steps does (each block pays its weights' way
    # through the SRAM port once per stream).
    matmul = _ops(_matmul(512, 3072, 768))[1]
    arch = arch_model.load(str(ARCH_768K))
    budget = arch.tile.sram.bytes
    plain = step_candidates(matmul, matmul.loops, budget,
                            array_rows=arch.tile.mac.rows, short_last=True)
    longer = step_candidates(matmul, matmul.loops, budget,
                             array_rows=arch.tile.mac.rows, short_last=True,
                             array_cols=arch.tile.mac.cols)
    assert (256, 192, 32) in plain and (512, 128, 32) not in plain
    assert (512, 128, 32) in longer
    # The added ones take whole columns of the array and fit SRAM.
    for steps in set(longer) - set(plain):
        assert steps[1] % arch.tile.mac.cols == 0
        assert sram_step_bytes(matmul, steps) <= budget


def test_store_spread_between_loads_where_it_holds_them_up():
    # The 768 KiB tile: a 256 x 256 accumulator (256 KiB) and a step's 64
    # KiB of loads take the three channels longer than the step's 2,048
    # cycles of products at 48 B/cycle; the 32 steps of the next slice
    # carry it in 31 pieces (none after the last), each at least 4 setups
    # at 48 B/cycle (3,840 bytes).
    matmul = _ops(_matmul(1024, 1024, 1024))[1]
    arch = arch_model.load(str(ARCH_768K))
    nbytes = 256 * 256 * 4
    assert spread_store_pieces(matmul, arch, (256, 256, 32), nbytes, 32) == 31
    # Steps whose products hide the store and the loads: it stays whole.
    assert spread_store_pieces(matmul, arch, (256, 256, 1024), nbytes, 1) == 1
    # Too few bytes for two pieces.
    assert spread_store_pieces(matmul, arch, (4, 8, 32), 4 * 8 * 4, 32) == 1
    # systolic-32x32's stores take DMA channels of their own.
    assert spread_store_pieces(matmul, arch_model.load("systolic-32x32"),
                               (256, 256, 32), nbytes, 32) == 1


def test_last_store_cut_where_transfers_run_in_issue_order():
    """tessel-early-stores: on the 768 KiB tile (DRAM channels of its own,
    no second group of DMA channels) only the tile's last store is cut into
    the blocks the array finishes; on systolic-32x32 (a second group) every
    step's store is."""
    matmul = _ops(_matmul(256, 256, 256))[1]
    step, nbytes = (256, 256, 32), 256 * 256 * 4
    tight = arch_model.load(str(ARCH_768K))
    assert runs_in_issue_order(tight, (0, 0))
    assert early_store_pieces(matmul, tight, step, nbytes) == 1
    assert early_store_pieces(matmul, tight, step, nbytes, last=True) == 8
    roomy = arch_model.load("systolic-32x32")
    assert not runs_in_issue_order(roomy, (0, 0))
    assert early_store_pieces(matmul, roomy, step, nbytes) == 8


def test_short_steps_that_cannot_hide_their_loads_are_costed_so():
    # GEMM 1024^3 on the 768 KiB tile in steps of 224 rows: the last
    # 128-row chunk reloads a whole 32 KiB panel of the right operand per
    # step and computes for less time than that takes, which the other
    # steps' slack does not make up (simulated: 1,177,535 cycles against
    # 1,126,923 for steps of 256 rows).
    matmul = _ops(_matmul(1024, 1024, 1024))[1]
    arch = arch_model.load(str(ARCH_768K))
    uneven = _whole_part(matmul, arch, (224, 256, 32))
    even = _whole_part(matmul, arch, (256, 256, 32))
    assert uneven.cycles > even.cycles
    assert estimate(matmul, arch, Placement(0, 0, 1, 1, (1, 1, 1))).steps == (256, 256, 32)


def test_zero_fill_runs_no_code_where_the_matmul_starts_from_init():
    # On a tile with DRAM channels of its own a matmul's zero fill becomes
    # its first blocks' init (tessel-lower-to-instructions): no vector
    # instruction per accumulator. Elsewhere each accumulator set in SRAM
    # is filled by one.
    matmul = _ops(_matmul(256, 128, 64))[1]
    own = arch_model.load("systolic-32x32")
    d = own.to_dict()
    d["name"] = "systolic-32x32-shared"
    d["grid"] = {"rows": 1, "cols": 2}
    shared = arch_model.Arch.from_dict(d)
    assert own.split_channels(0, 0) == 2 and shared.split_channels(0, 0) == 1
    steps = (64, 64, 128)
    filled = _whole_part(matmul, shared, steps).compute
    folded = _whole_part(matmul, own, steps).compute
    fills = 4 * vector_cycles(shared, "add", 64 * 64, 64 * 64 * 4)
    assert filled - folded == fills


def test_store_pieces_are_the_blocks_along_the_shorter_side():
    # A 256 x 128 result on systolic-32x32's 32 x 32 array: the 256 rows
    # stream, the 128 columns are 4 blocks, each final at its own
    # instruction; a piece is at least 4 DMA setups' worth (4 x 20 x 64 =
    # 5120 bytes).
    op = _only_op(MATMUL)
    arch = arch_model.load("systolic-32x32")
    assert early_store_pieces(op, arch, (256, 128, 32), 256 * 128 * 4) == 4
    assert early_store_pieces(op, arch, (8, 128, 32), 8 * 128 * 4) == 1
    # A tile whose four DMA channels each read one of its four DRAM
    # channels: a piece's DRAM latency would not overlap another's, and
    # tessel-early-stores keeps the store whole.
    assert early_store_pieces(op, small_arch(1, 1), (256, 128, 32),
                              256 * 128 * 4) == 1


def test_convolution_is_offered_channel_steps():
    # A convolution whose part fits SRAM whole waits for its whole window
    # and weights before its first product; channel steps of the array's
    # rows (16) load the next channels under the current ones' products.
    # Both are costed, and on one tile of tessel-4x4 the stepped one is
    # cheaper (the output stays in SRAM across the steps).
    text = CONV.replace("1x2x10x10", "1x64x10x10").replace("16x2x3x3", "16x64x3x3")
    op = _only_op(text)
    arch = small_arch(1, 1)
    candidates = step_candidates(op, op.loops, arch.tile.sram.bytes,
                                 array_rows=arch.tile.mac.rows)
    assert op.loops in candidates
    stepped = (1, 16, 8, 8, 16, 3, 3)
    assert stepped in candidates
    assert (_whole_part(op, arch, stepped).cycles
            < _whole_part(op, arch, op.loops).cycles)


MATMUL_64x32x128 = """
func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
"""


def test_accumulator_moves_once_per_output_step():
    # tessel-promote-to-sram keeps a matmul's accumulator in SRAM across the
    # reduction's steps: over 4 steps along k the inputs move once each
    # (A 32 KiB, B 16 KiB), the 8 KiB accumulator in and out once, not 4
    # times. Cut along m instead, each step moves its own rows of it, and
    # B, which no step changes, is loaded once and kept.
    op = _only_op(MATMUL_64x32x128)
    arch = small_arch(1, 1)
    assert _whole_part(op, arch, (64, 32, 32)).dram_bytes == 32768 + 16384 + 2 * 8192
    assert _whole_part(op, arch, (16, 32, 128)).dram_bytes == 32768 + 16384 + 2 * 8192


def test_input_no_step_changes_is_costed_once_on_a_lone_tile_only():
    # tessel-promote-to-sram loads B once when the steps cut only m. A lone
    # tile is costed so; on a rectangle B is costed at every step (the one
    # placement where costing it once chose worse steps, docs/mapper.md).
    op = _only_op(MATMUL_64x32x128)
    arch = small_arch(1, 2)
    lone = _whole_part(op, arch, (16, 32, 128))
    pair = Placement(0, 0, 1, 2, (1, 2, 1))
    split = _estimate_steps(op, arch, pair, (64, 16, 128), (16, 16, 128),
                            resident=False, resident_bytes=0, overlap_dma=True,
                            program_tiles=None, link=dram_link(arch, pair))
    assert lone.dram_bytes == 32768 + 16384 + 2 * 8192
    # Each of the two tiles: A's 32 KiB, its half of B at each of 4 steps,
    # its half of C in and out.
    assert split.dram_bytes == 2 * (32768 + 4 * 8192 + 2 * 4096)


ZERO_INIT_MATMUL = """
func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
"""


def _ops(text):
    with Context():
        return graph.from_module(Module.parse(text)).ops


def test_zero_fill_folded_into_the_accumulator():
    # tessel-promote-to-sram fills the accumulator in SRAM and erases the
    # fill: the fill costs nothing, and the accumulator is stored, not
    # loaded, wherever it would be loaded once per element.
    fill, matmul = _ops(ZERO_INIT_MATMUL)
    assert fill.folded and matmul.operands[2].filled
    arch = small_arch(1, 1)
    assert estimate(fill, arch, Placement(0, 0, 1, 1, (1, 1))).cycles == 0
    assert _whole_part(matmul, arch, (64, 32, 32)).dram_bytes == 32768 + 16384 + 8192
    # Cut along m as well, each step stores its own rows, loading none.
    assert _whole_part(matmul, arch, (16, 32, 32)).dram_bytes == 32768 + 4 * 16384 + 8192


def test_fill_read_twice_stays():
    # A fill that a second op reads as well keeps its values in DRAM.
    text = ZERO_INIT_MATMUL.replace(
        "return %r : tensor<64x32xf32>",
        "%s = linalg.add ins(%r, %c : tensor<64x32xf32>, tensor<64x32xf32>) "
        "outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>\n"
        "  return %s : tensor<64x32xf32>")
    fill, matmul, _ = _ops(text)
    assert not fill.folded and not matmul.operands[2].filled
    assert _whole_part(matmul, small_arch(1, 1), (64, 32, 32)).dram_bytes \
        == 32768 + 16384 + 2 * 8192


def test_accumulator_reloaded_per_reduction_step_is_loaded():
    # A sum over the middle loop, cut into steps outside the innermost output
    # loop, loads its accumulator once per reduction step: only the first
    # would see the fill, so tessel-promote-to-sram keeps the fill and the
    # loads (test/Transforms/tessel-promote-to-sram.mlir,
    # @fill_kept_for_a_reloaded_accumulator). The cost model loads it too,
    # and charges the fill, which costs nothing as an op of its own, here.
    text = """
    func.func @f(%x: tensor<4x16x8xf32>) -> tensor<4x8xf32> {
      %e = tensor.empty() : tensor<4x8xf32>
      %zero = arith.constant 0.0 : f32
      %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, r, j) -> (i, r, j)>, affine_map<(i, r, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<4x16x8xf32>) outs(%c : tensor<4x8xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %s = arith.addf %acc, %in : f32
        linalg.yield %s : f32
      } -> tensor<4x8xf32>
      return %r : tensor<4x8xf32>
    }
    """
    _, total = _ops(text)
    assert total.operands[1].filled
    arch = small_arch(1, 1)
    x, out = 4 * 16 * 8 * 4, 4 * 8 * 4
    assert _whole_part(total, arch, (4, 16, 4)).dram_bytes == x + out
    assert _whole_part(total, arch, (4, 8, 4)).dram_bytes == x + 2 * 2 * out
    # Against the same op initialized by something else, loaded either way:
    # set in SRAM it is cheaper, reloaded it pays for the fill as well.
    unfilled = dataclasses.replace(total, operands=(
        total.operands[0], dataclasses.replace(total.operands[1], filled=False)))
    assert _whole_part(total, arch, (4, 16, 4)).cycles \
        < _whole_part(unfilled, arch, (4, 16, 4)).cycles
    assert _whole_part(total, arch, (4, 8, 4)).cycles \
        > _whole_part(unfilled, arch, (4, 8, 4)).cycles


BIAS_RELU_MATMUL = """
func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %s = linalg.broadcast ins(%bias : tensor<32xf32>) outs(%e : tensor<64x32xf32>) dimensions = [0]
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%s : tensor<64x32xf32>) -> tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
"""


def test_bias_seeds_the_accumulator_and_relu_runs_as_its_epilogue():
    # A bias broadcast into the matmul's output folds like a fill, each
    # accumulator loading its columns of the bias (tessel-fold-bias-adds,
    # tessel-promote-to-sram); the ReLU after it runs on each slice of the
    # result before it is stored (tessel-fuse-epilogues).
    broadcast, matmul, relu = _ops(BIAS_RELU_MATMUL)
    out = matmul.operands[2]
    assert broadcast.folded and out.filled and out.seed_dims == (1,)
    assert relu.folded and matmul.epilogue is not None
    arch = small_arch(1, 1)
    # In steps of 16 rows (the whole right operand, which no step changes,
    # loaded once): four accumulators, each loading the 32 columns of the
    # bias; the result goes to DRAM once, the ReLU's.
    a, b, c, bias = 64 * 128 * 4, 128 * 32 * 4, 64 * 32 * 4, 32 * 4
    assert _whole_part(matmul, arch, (16, 32, 128)).dram_bytes \
        == a + b + c + 4 * bias
    # The ReLU's temporaries (its maximum and its zero) and its input's
    # slice (counted as tessel-tile-for-sram does) share the step's SRAM.
    plain = dataclasses.replace(matmul, epilogue=None)
    assert scratch_bytes(matmul, (16, 32, 128)) \
        == scratch_bytes(plain, (16, 32, 128)) + 3 * 16 * 32 * 4


def test_explain_marks_the_folded_fill():
    from tessel.mapper import explain, solve

    with Context():
        g = graph.from_module(Module.parse(ZERO_INIT_MATMUL))
    arch = small_arch(2, 2)
    solution = solve(g, arch, "cpsat")
    lines = explain.table(g, solution, arch).splitlines()
    fill, matmul = (next(line for line in lines if line.startswith(label))
                    for label in ("#0 fill", "#1 matmul"))
    at = lines[0].index("cycles")

    def cycles(line):
        return int(line[at:].split()[0])

    # The fill runs no code; the matmul carries the whole prediction.
    assert " F " in fill and cycles(fill) == 0
    assert " F " not in matmul
    assert cycles(matmul) == solution.latency > 0
    assert lines[-3] == f"predicted latency {solution.latency} cycles"
    assert lines[-2].startswith("cpsat: OPTIMAL") and "gap 0.00%" in lines[-2]
    assert "a fill into the accumulator it initializes" in lines[-1]


EMBEDDING = """
func.func @f(%table: tensor<100x16xf32>, %ids: tensor<2x8xi64>) -> tensor<2x8x16xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x8xi64>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<2x8x16xf32>
  return %r : tensor<2x8x16xf32>
}
"""


def test_a_lookup_costs_the_gather_of_its_rows():
    # Each point reads one f32 of the table: a step of 2 x 8 x 16 points
    # gathers 1 KiB from DRAM, waited for where it is issued.
    op = _only_op(EMBEDDING)
    assert op.gathered_bytes == 4
    arch = small_arch(1, 1)
    with_gather = _whole_part(op, arch, op.loops)
    without = _whole_part(dataclasses.replace(op, gathered_bytes=0), arch, op.loops)
    rate, hops = dram_link(arch, Placement(0, 0, 1, 1, (1, 1, 1)))
    gather = transfer_cycles(arch, 2 * 8 * 16 * 4, rate, hops)
    assert with_gather.transfer - without.transfer in (int(gather), int(gather) + 1)
    assert with_gather.dram_bytes - without.dram_bytes == 2 * 8 * 16 * 4


def test_epilogue_kept_only_where_predicted_faster():
    # choose_epilogues keeps the ReLU on the matmul's slices, where the
    # matmul's cheapest placement running it beats the two apart (it saves
    # the result's round trip through DRAM), and map_module writes the
    # choice as tessel.epilogue on the ReLU. A body of 1000 vector ops would
    # take so much of the matmul's SRAM for its temporaries that its steps
    # shrink: fused, it is predicted slower, and runs apart.
    from tessel.mapper import MapperOptions, choose_epilogues, map_module
    from tessel.mapper.space import epilogue_estimates

    arch = small_arch(2, 2)
    options = MapperOptions()
    with Context():
        g = graph.from_module(Module.parse(BIAS_RELU_MATMUL))
    broadcast, matmul, relu = g.ops
    fused, alone, rest = (c.estimate.cycles
                          for c in epilogue_estimates(matmul, arch, options))
    assert fused < alone + rest
    chosen = choose_epilogues(g, arch, options)
    assert chosen.ops[1].epilogue is not None and chosen.ops[2].folded

    heavy = dataclasses.replace(relu, vector_ops=1000, temporaries=1000)
    heavy_graph = dataclasses.replace(g, ops=(
        broadcast, dataclasses.replace(matmul, epilogue=heavy), heavy))
    fused, alone, rest = (c.estimate.cycles for c in epilogue_estimates(
        heavy_graph.ops[1], arch, options))
    assert fused > alone + rest
    chosen = choose_epilogues(heavy_graph, arch, options)
    assert chosen.ops[1].epilogue is None and not chosen.ops[2].folded

    with Context():
        module = Module.parse(BIAS_RELU_MATMUL)
        module.operation.attributes["tessel.arch"] = arch.to_attribute()
        map_module(module, arch, "cpsat", options)
        relu_op = [op for op in module.body.operations[0].regions[0].blocks[0]
                   .operations if op.operation.name == "linalg.generic"][0]
        assert "tessel.epilogue" in relu_op.operation.attributes


RELU_BETWEEN_MATMULS = """
func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = linalg.matmul ins(%y, %c : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z2 : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
"""


def test_tensor_report_says_where_each_tensor_between_ops_goes():
    from tessel.mapper import MapperOptions, explain
    from tessel.mapper.space import epilogue_estimates

    with Context():
        g = graph.from_module(Module.parse(RELU_BETWEEN_MATMULS))
    arch, options = small_arch(2, 2), MapperOptions()
    fill, matmul, relu, fill2, matmul2 = g.ops
    assert matmul.epilogue is not None and relu.folded
    lines = explain.tensor_report(g, arch, options)
    # The first matmul's result stays in SRAM for the ReLU; the ReLU's goes
    # to DRAM for the second matmul; the fills are no tensors.
    size = 64 * 32 * 4
    assert lines == [
        f"tensors between ops: {size} bytes stay in SRAM, {size} bytes go "
        "to DRAM and back:",
        f"  #1 matmul 64x32 ({size} bytes): SRAM, #2 generic runs on its "
        "slices",
        f"  #2 generic 64x32 ({size} bytes): DRAM, its reader #4 matmul is "
        "not an elementwise op"]
    # Left apart where fusing is predicted slower (a body of 1000 vector
    # ops, as in the test above), the report gives the prediction.
    heavy = dataclasses.replace(relu, vector_ops=1000, temporaries=1000,
                                folded=False)
    apart = dataclasses.replace(g, ops=(
        fill, dataclasses.replace(matmul, epilogue=None), heavy, fill2, matmul2))
    fused, alone, reader = (c.estimate for c in epilogue_estimates(
        dataclasses.replace(matmul, epilogue=heavy), arch, options))
    assert fused.cycles > alone.cycles + reader.cycles
    assert explain.tensor_report(apart, arch, options)[1] == (
        f"  #1 matmul 64x32 ({size} bytes): DRAM, #2 generic as its epilogue "
        f"predicted slower ({fused.cycles} cycles, its steps holding "
        f"{fused.sram_bytes / 1024:.1f} of 256 KiB per tile, against "
        f"{alone.cycles} + {reader.cycles} apart)")
    # Where fusing is predicted faster, it was not weighed: only as the
    # epilogue of the op before it is an op weighed.
    apart = dataclasses.replace(g, ops=(
        fill, dataclasses.replace(matmul, epilogue=None),
        dataclasses.replace(relu, folded=False), fill2, matmul2))
    assert explain.tensor_report(apart, arch, options)[1].endswith(
        "#2 generic as its epilogue not weighed (#1 matmul was weighed as "
        "the epilogue of the op before it)")
    # With the mapping, a result stored to DRAM says what of it each of the
    # tiles that wrote it (for an epilogue's, its producer's) would hold
    # against the SRAM their steps leave.
    from tessel.mapper import solve
    solution = solve(g, arch, "cpsat")
    first = next(c for c in solution.choices if c.op == matmul.index)
    p, e = first.placement, first.candidate.estimate
    left = (arch.tile.sram.bytes - e.sram_bytes) / 1024
    line = explain.tensor_report(g, arch, options, solution)[2]
    assert line.endswith(f"not an elementwise op; {size / p.tiles / 1024:.1f} KiB "
                         f"of it a tile of its {p.rows}x{p.cols}, {left:.1f} KiB "
                         "of SRAM left beside its steps")


def test_an_op_hashes_its_fields_once_and_pickles_without_the_hash():
    # The step caches key on ops: equal ops, built apart, hash alike; a
    # changed op hashes anew; a pickled op carries no hash of this process.
    import pickle
    op, again = _only_op(MATMUL), _only_op(MATMUL)
    assert op is not again and op == again and hash(op) == hash(again)
    assert "_hash" in op.__dict__
    other = dataclasses.replace(op, vector_ops=2)
    assert other != op and "_hash" not in other.__dict__
    restored = pickle.loads(pickle.dumps(op))
    assert "_hash" not in restored.__dict__
    assert restored == op and hash(restored) == hash(op)
    assert sram_step_bytes(restored, (64, 128, 128)) == \
        sram_step_bytes(op, (64, 128, 128))
