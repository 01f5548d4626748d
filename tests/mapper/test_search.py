"""The mappers against each other on small random graphs and grids (no MLIR
needed): the exhaustive mapper proves CP-SAT's answer optimal, CP-SAT is
never worse than the greedy mapper, and CP-SAT gives the same answer every
run."""

import pytest

from randomgraphs import random_graph

from tessel import arch as arch_model
from tessel.mapper import MapperOptions, Problem, solve, unsupported
from tessel.mapper import cpsat, exhaustive, heuristic
from tessel.mapper.cost import Placement, estimate, step_sizes, working_set
from tessel.mapper.space import pack


def small_arch(rows, cols, sram=262144):
    d = arch_model.load("tessel-4x4").to_dict()
    d["name"] = f"test-{rows}x{cols}"
    d["grid"] = {"rows": rows, "cols": cols}
    d["tile"]["sram"]["bytes"] = sram
    d["dram"]["attach"] = [[0, 0], [0, cols - 1], [rows - 1, 0], [rows - 1, cols - 1]]
    return arch_model.Arch.from_dict(d)


CASES = [
    # (seed, ops, grid, objective, stages, resident)
    (0, 3, (2, 2), "latency", 1, False),
    (1, 3, (2, 3), "latency", 1, False),
    (2, 3, (2, 2), "throughput", 2, False),
    (3, 4, (2, 3), "throughput", 3, False),
    (4, 3, (3, 3), "throughput", 3, False),
    (5, 4, (2, 2), "throughput", 2, True),
    (6, 3, (3, 2), "throughput", 3, True),
    (7, 4, (3, 3), "throughput", 2, False),
    (8, 3, (1, 4), "throughput", 3, False),
    (9, 4, (2, 4), "throughput", 3, True),
]


@pytest.mark.parametrize("seed,ops,grid,objective,stages,resident", CASES)
def test_cpsat_is_optimal_and_never_worse_than_greedy(seed, ops, grid, objective,
                                                      stages, resident):
    # SRAM small enough that residency competes with working sets.
    arch = small_arch(*grid, sram=65536 if resident else 262144)
    options = MapperOptions(objective=objective, max_stages=stages,
                            resident_weights=resident, max_candidates=4,
                            single_tile_ops=True)
    problem = Problem.build(random_graph(seed, ops), arch, options)
    best = exhaustive.solve(problem)
    found = cpsat.solve(problem)
    greedy = heuristic.solve(problem)
    assert found.objective == best.objective
    assert found.status == "OPTIMAL" and found.bound == found.objective
    assert found.objective <= greedy.objective
    assert problem.objective(found.choices) == found.objective
    # The stages' rectangles do not overlap and lie on the grid.
    corners = {}
    for c in found.choices:
        p = c.placement
        assert 0 <= p.row and p.row + p.rows <= grid[0]
        assert 0 <= p.col and p.col + p.cols <= grid[1]
        corners.setdefault(c.stage, (p.row, p.col))
        assert corners[c.stage] == (p.row, p.col)


def test_pipeline_beats_one_stage_on_throughput():
    arch = small_arch(2, 4)
    g = random_graph(3, 4)
    one = solve(g, arch, "cpsat", MapperOptions(objective="throughput",
                                                max_stages=1, max_candidates=6))
    three = solve(g, arch, "cpsat", MapperOptions(objective="throughput",
                                                  max_stages=3, max_candidates=6))
    assert three.interval <= one.interval
    assert unsupported(g, three) == []


def test_cpsat_gives_the_same_answer_every_run():
    arch = small_arch(4, 4)
    g = random_graph(11, 6)
    options = MapperOptions(objective="throughput", max_stages=3,
                            time_limit_s=2.0)
    first = solve(g, arch, "cpsat", options)
    for _ in range(2):
        again = solve(g, arch, "cpsat", options)
        assert again.choices == first.choices
        assert again.objective == first.objective


def test_steps_fit_sram_twice():
    arch = small_arch(2, 2, sram=16384)
    op = random_graph(0, 1).ops[0]
    steps = step_sizes(op, op.loops, arch.tile.sram.bytes)
    assert 2 * working_set(op, steps) <= arch.tile.sram.bytes
    assert steps != op.loops            # it had to be cut
    e = estimate(op, arch, Placement(0, 0, 1, 2, (2, 1, 1)))
    assert e.sram_bytes <= arch.tile.sram.bytes and e.num_steps > 1


def test_split_reductions_are_written_uneven_ones_reported():
    from tessel.mapper.space import Candidate, Choice, Solution

    arch = small_arch(2, 2)
    g = random_graph(1, 1)
    op = g.ops[0]

    def solution(placement):
        choice = Choice(0, Candidate(placement, estimate(op, arch, placement)))
        return Solution("test", (choice,), 0, 0, 0.0)

    whole = estimate(op, arch, Placement(0, 0, 1, 2, (1, 2, 1)))
    split = estimate(op, arch, Placement(0, 0, 1, 2, (1, 1, 2)))
    assert split.reduce > 0 and whole.reduce == 0
    assert unsupported(g, solution(Placement(0, 0, 1, 2, (1, 1, 2)))) == []
    # Together with a parallel loop, as long as the parts divide the loops.
    assert unsupported(g, solution(Placement(0, 0, 2, 2, (1, 2, 2)))) == []
    loops = op.loops
    odd = next((l for l in range(len(loops)) if loops[l] % 3), None)
    assert odd is not None and odd not in op.reduction_loops
    red = op.reduction_loops[0]
    parts = tuple(3 if l == odd else 2 if l == red else 1
                  for l in range(len(loops)))
    uneven = unsupported(g, solution(Placement(0, 0, 2, 3, parts)))
    assert any(f"#{odd}" in u and "do not divide" in u for u in uneven)


def test_pack_is_exact():
    assert pack([(2, 2), (2, 2)], 2, 4) == [(0, 0), (0, 2)]
    assert pack([(2, 3), (2, 2)], 2, 4) is None
    assert pack([(1, 3), (2, 1), (1, 3)], 2, 4) is not None


def test_no_split_reduction_whose_partials_the_isa_cannot_add_up():
    # A convolution's output has rank 4, its partials rank 5: no
    # vector_reduce adds them up, so the mapper offers no such split, and a
    # solution that has one is reported.
    from dataclasses import replace

    from tessel.mapper.graph import Access, Graph, Op, Operand
    from tessel.mapper.space import Candidate, Choice, Solution, candidates

    def operand(shape, loops, **kw):
        return Operand(shape=shape, elem_bytes=4,
                       access=tuple(Access(((l, 1),)) for l in loops), **kw)

    # out[n, f, h, w] += x[n, c, h, w]: four outputs, a long reduction,
    # which split-K would speed up.
    op = Op(index=0, name="linalg.generic", kind="reduction",
            loops=(1, 4, 1, 1, 65536),
            iterators=("parallel",) * 4 + ("reduction",),
            operands=(operand((1, 65536, 1, 1), (0, 4, 2, 3)),
                      operand((1, 4, 1, 1), (0, 1, 2, 3), is_output=True)))
    arch = small_arch(2, 2)
    options = MapperOptions()
    assert all(c.placement.parts[4] == 1 for c in candidates(op, arch, options))
    g = Graph("conv", (op,))
    placement = Placement(0, 0, 1, 2, (1, 1, 1, 1, 2))
    split = Solution("test", (Choice(0, Candidate(placement,
                                                   estimate(op, arch, placement))),),
                     0, 0, 0.0)
    assert any("reduce of rank above 4" in u for u in unsupported(g, split))
    # Drop the batch dimension and the split is offered.
    flat = replace(op, loops=op.loops[1:], iterators=op.iterators[1:],
                   operands=(operand((65536, 1, 1), (3, 1, 2)),
                             operand((4, 1, 1), (0, 1, 2), is_output=True)))
    assert any(c.placement.parts[3] > 1 for c in candidates(flat, arch, options))


def test_ops_of_one_shape_are_costed_once():
    # ResNet repeats its convolutions' shapes, each op reading another's
    # result: ops that differ only in their names and in which tensors
    # they read share their candidates.
    from dataclasses import replace

    from randomgraphs import elementwise, matmul

    from tessel.mapper import space

    def with_epilogue(index, source):
        producer = matmul(index, 32, 64, 64, source)
        epilogue = replace(elementwise(index + 1, 32, 64, ("op", index)),
                           folded=True)
        return replace(producer, epilogue=epilogue)

    arch = small_arch(2, 2)
    options = MapperOptions()
    first = with_epilogue(1, ("op", 0))
    second = replace(with_epilogue(7, ("op", 4)), name="linalg.other",
                     tag="model.py:12")
    space.clear_caches()
    cached = space.candidates(first, arch, options)
    assert space.candidates(second, arch, options) is cached
    space.clear_caches()
    assert space.candidates(second, arch, options) == cached

    # What the cost model reads of an op still tells ops apart: a value a
    # body captures, the bytes it gathers, an operand's kind of source, and
    # whether an epilogue reads its producer's result or another op's.
    key = space._op_key(first)
    assert space._op_key(replace(first, captured=1)) != key
    assert space._op_key(replace(first, gathered_bytes=4)) != key
    weight = first.operands[1]
    assert space._op_key(replace(first, operands=(
        first.operands[0], replace(weight, source=("op", 0)),
        first.operands[2]))) != key
    epilogue = first.epilogue
    assert space._op_key(replace(first, epilogue=replace(epilogue, operands=(
        replace(epilogue.operands[0], source=("op", 0)),
        epilogue.operands[1])))) != key


CONV_28x28 = """
func.func @f(%x: tensor<1x32x30x30xf32>, %w: tensor<64x32x3x3xf32>, %y: tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x30x30xf32>, tensor<64x32x3x3xf32>) outs(%y : tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32>
  return %r : tensor<1x64x28x28xf32>
}
"""


def test_cuts_are_skipped_only_where_they_cannot_win(monkeypatch):
    # The candidate search skips a cut whose steps' instructions and
    # barrier alone (cost.least_cycles) take longer than the best cut of its
    # kind (or as long, coming later): that floor is at most every
    # estimate, shared or not, DMA under compute or not, and the candidates
    # are those of costing every cut.
    from dataclasses import replace

    from randomgraphs import elementwise, matmul

    from tessel.ir import Context, Module
    from tessel.mapper import graph, space
    from tessel.mapper.cost import least_cycles
    from tessel.mapper.space import factorizations, placed

    with Context():
        conv = graph.from_module(Module.parse(CONV_28x28)).ops[0]
    gemm = replace(matmul(1, 128, 256, 96, ("op", 0)),
                   epilogue=replace(elementwise(2, 128, 256, ("op", 1)), folded=True))
    arch = small_arch(4, 4)
    options = MapperOptions()
    for op in (conv, gemm):
        loops = [(l, e) for l, e in enumerate(op.loops)
                 if e >= 2 and op.iterators[l] == "parallel"]
        for rows, cols in ((1, 2), (2, 2), (2, 4), (4, 4)):
            for cut in factorizations(rows * cols, loops, even=False):
                parts = tuple(cut.get(l, 1) for l in range(len(op.loops)))
                placement = Placement(0, 0, rows, cols, parts)
                for overlap in (True, False):
                    costed = placed(op, arch, placement, overlap)
                    if costed is not None:
                        assert (least_cycles(op, arch, placement)
                                <= costed.estimate.cycles)
        space.clear_caches()
        pruned = space.candidates(op, arch, options)
        with monkeypatch.context() as m:
            m.setattr(space, "least_cycles", lambda *args: 0)
            space.clear_caches()
            assert space.candidates(op, arch, options) == pruned
        space.clear_caches()
