"""Results handed over on chip, weighed with the placements
(tessel.mapper.handover): the cuts that put a result's parts on the tiles
that read them, and attention's scores kept through its softmax."""

import torch

from randomgraphs import random_graph
from test_on_chip_choice import mapped
from test_search import small_arch

from tessel import arch as arch_model
from tessel.driver.pipeline import compile_imported
from tessel.frontend import import_torch
from tessel.mapper import MapperOptions, Problem, cpsat, exhaustive, heuristic
from tessel.mapper.graph import Access, Op, Operand
from tessel.mapper.handover import aligned_parts, with_handovers
from tessel.mapper.space import partials_fit_the_isa, placement_key
from tessel.runtime.simulator import simulate


def _loops(*loops):
    return tuple(Access(((l, 1),)) for l in loops)


def _writer(shape=(4, 8, 8)):
    """Heads x rows x columns, a batch matmul's result (its reduction loop
    last)."""
    out = Operand(shape=shape, elem_bytes=4, access=_loops(0, 1, 2),
                  is_output=True, read=False)
    return Op(index=0, name="linalg.batch_matmul", kind="batch_matmul",
              loops=shape + (16,), iterators=("parallel",) * 3 + ("reduction",),
              operands=(out,))


def _reader(loops, iterators, access, shape=(4, 8, 8)):
    read = Operand(shape=shape, elem_bytes=4, access=access, source=("op", 0))
    out = Operand(shape=loops, elem_bytes=4, access=_loops(*range(len(loops))),
                  is_output=True, read=False)
    return Op(index=1, name="linalg.generic", kind="reduction"
              if "reduction" in iterators else "elementwise",
              loops=loops, iterators=iterators, operands=(read, out))


def test_aligned_parts_put_each_part_on_the_tile_that_holds_it():
    writer = _writer()
    # A softmax's reduction over the columns, through a unit reshape
    # (1 x heads x rows x columns).
    rowmax = _reader((1, 4, 8, 8), ("parallel",) * 3 + ("reduction",),
                     _loops(0, 1, 2, 3), shape=(1, 4, 8, 8))
    assert aligned_parts(writer, rowmax, 0, (4, 2, 1, 1), True) == (1, 4, 2, 1)
    assert aligned_parts(writer, rowmax, 0, (1, 4, 2, 1), False) == (4, 2, 1, 1)
    # The reader would have to split its reduction over the columns.
    assert aligned_parts(writer, rowmax, 0, (4, 1, 2, 1), True) is None
    # A reader whose loops run rows first (a transpose): the same parts,
    # read on other tiles where both loops are split.
    swapped = _reader((8, 4, 8), ("parallel",) * 3, _loops(1, 0, 2))
    assert aligned_parts(writer, swapped, 0, (4, 2, 1, 1), True) == (2, 4, 1)
    assert aligned_parts(writer, swapped, 0, (4, 1, 1, 1), True) == (1, 4, 1)
    # Uneven, 8 rows in 3 parts: the same parts, of the same extent.
    assert aligned_parts(writer, swapped, 0, (1, 3, 1, 1), True) == (3, 1, 1)


def test_a_split_reduction_needs_each_output_dimension_indexed_by_a_loop():
    # A layer norm's mean, 1 x rows x 1: its partials would have no place
    # (tessel-partition rejects such a mapping), so it is never offered.
    rows = Operand(shape=(1, 8, 16), elem_bytes=4, access=_loops(0, 1, 2))
    mean = Operand(shape=(1, 8, 1), elem_bytes=4,
                   access=_loops(0, 1) + (Access((), 0),), is_output=True)
    op = Op(index=0, name="linalg.generic", kind="reduction", loops=(1, 8, 16),
            iterators=("parallel", "parallel", "reduction"), operands=(rows, mean))
    assert not partials_fit_the_isa(op)
    summed = Operand(shape=(1, 8), elem_bytes=4, access=_loops(0, 1), is_output=True)
    assert partials_fit_the_isa(Op(index=0, name="linalg.generic", kind="reduction",
                                   loops=(1, 8, 16), iterators=op.iterators,
                                   operands=(rows, summed)))


class _Attention(torch.nn.Module):
    """Four heads of 64 tokens: scores, softmax, weighted values."""

    def forward(self, x):
        q, k, v = x[0], x[1], x[2]
        return torch.softmax(q @ k.transpose(-1, -2) * 0.25, dim=-1) @ v


def test_attention_scores_stay_on_chip_through_the_softmax():
    # Placed alone, the scores' batch matmul is cut over rows and columns
    # and the softmax's reductions over heads and rows: they would read the
    # scores from other tiles, so the scores went to DRAM and back. Weighed
    # with the placements, the batch matmuls and the softmax are cut alike
    # and every hand-over is a read of the tile's own SRAM.
    torch.manual_seed(0)
    x = torch.randn(3, 4, 64, 16)
    g, solution = mapped(_Attention(), x, "tessel-4x4")
    matmuls = [op.index for op in g.ops if op.kind == "batch_matmul"]
    softmax = [op.index for op in g.ops
               if op.kind in ("reduction", "elementwise") and not op.folded]
    assert matmuls[0] in solution.handed_over
    assert set(softmax) & solution.handed_over
    assert matmuls[0] in solution.on_chip and softmax[-1] in solution.on_chip
    assert any(note.startswith(f"#{matmuls[0]} batch_matmul: result on chip, ")
               and note.endswith(", placed with its readers to hand it over")
               for note in solution.notes), solution.notes
    placed = {c.op: c.placement for c in solution.choices}
    assert placed[matmuls[0]].parts[:2] == placed[matmuls[1]].parts[:2]

    model = import_torch(_Attention().eval(), (x,), name="attention")
    cycles = {}
    for on_chip in (True, False):
        program = compile_imported(model, "tessel-4x4", mapper="cpsat",
                                   mapper_options=MapperOptions(
                                       time_limit_s=10, on_chip=on_chip))
        result = simulate(program, {"x": x.numpy()})
        expected = _Attention()(x).detach().numpy()
        error = abs(result.outputs["output"] - expected).max()
        assert error < 1e-4 * abs(expected).max()
        cycles[on_chip] = result.cycles
    # 3,924 cycles against 7,316 (7,072 before the mapper weighed
    # hand-overs, the results kept as placed).
    assert cycles[True] < 0.7 * cycles[False]


def test_cpsat_weighs_hand_overs_as_the_exhaustive_mapper_does():
    # Chains of matmuls and elementwise ops whose results can be handed
    # over; on the last, a 3 x 3 grid, CP-SAT and the exhaustive mapper
    # place an op to hand its result over where the greedy mapper, each op
    # at its cheapest, does not.
    for seed, ops, grid in ((2, 3, (2, 3)), (5, 3, (3, 3)), (22, 4, (3, 3))):
        problem = with_handovers(Problem.build(
            random_graph(seed, ops), small_arch(*grid),
            MapperOptions(max_candidates=4)))
        best, found = exhaustive.solve(problem), cpsat.solve(problem)
        greedy = heuristic.solve(problem)
        assert found.objective == best.objective <= greedy.objective
        assert found.status == "OPTIMAL" and found.bound == found.objective
        saved, writers = problem.handed_over(found.choices)
        assert saved > 0 and writers
        assert problem.objective(found.choices) == \
            sum(c.cycles for c in found.choices) - saved
        assert greedy.status == "FEASIBLE" and greedy.bound <= found.objective
        # A cut offered only to hand a result over is not chosen for itself.
        assert not {(c.op, placement_key(c.candidate))
                    for c in greedy.choices} & problem.aligned
    assert found.objective < greedy.objective and problem.aligned
