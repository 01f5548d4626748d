"""Which results stay in the SRAM of the tiles that computed them.

An op mapped ``on_chip`` keeps its result where its tiles computed it
(tessel-keep-on-chip): nothing is stored to DRAM, and each later op reads
the slices it needs from the tile that holds them, over the NoC, or from its
own SRAM; the holders free them once every reader is done. Each tile of the
writer holds its part of the result over that span, and every op on the
tile in between sizes its steps in what is left (tessel-tile-for-sram).

After the placements are chosen, a result stays on chip where the lowering
keeps it whole and the SRAM holds it:

- it is a tensor between ops, not a model output, that later ops read as it
  is, through a padded view (a convolution's input) or, where the reader
  is elementwise, a reduction or a copy, through a reshape that only adds
  or removes dimensions of one element (a layer norm's ``1x128x768`` of a
  matmul's ``128x768`` result; one that merges or splits dimensions reads
  boxes of the result that are no boxes of its slices),
  that its writer computes once (not split over a reduction, whose partial
  results a second op adds) and that no reader overwrites;
- where a reader shares its loads (mapped ``shared``: one DRAM read,
  multicast to the tiles that read alike), its part on each tile is at
  least what a transfer moves in its setup time: a smaller one, fetched
  from each holder apart, saves less than it costs (a 384-byte part of
  GPT-2's block on tessel-4x4 made it 260 cycles slower; the MLP training
  step's, read by ops that do not share, run 9 % faster kept);
- each reader's step reads the slices the writer's steps computed in at
  most as many pieces as cost, in transfer setups, what a DRAM load costs
  in its setup and latency: more pieces cost more in transfers than the
  DRAM round trip saves (an 8 x 128 MLP on tessel-16x16, each of its reads
  cut into 16 pieces of 64 bytes, ran 16 % slower kept). A window with a
  halo (a split convolution's) spans a slice more each side: ResNet-18 on
  tessel-4x4, its 3 x 3 convolutions reading 9 slices a window, ran 0.6 %
  slower with them kept. Where the one reader reads windows (a pooling, a
  depthwise convolution) or is a 1 x 1 convolution, or where several
  elementwise ops and reductions read it (a layer norm's),
  :func:`realign_readers` weighs the pieces with the estimate instead (a
  convolution still within the limit), and may cut the readers again to
  read fewer;
- its part on each tile is at most ``1 / HELD_FRACTION`` of a tile's SRAM,
  and, chosen together over the live set (CP-SAT, ``_choose``), every
  result held on a tile at once at most ``1 / LIVE_FRACTION``: the ops
  between keep most of their SRAM for their own steps.

Otherwise it goes to DRAM, and ``notes`` say why (``tessel map --explain``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cost import Placement, _loaded_once, estimate
from .graph import Graph, Op, readers_of
from .space import divides, factorizations, placed

# A held part takes at most this fraction of a tile's SRAM, and all parts
# held on a tile at once at most LIVE_FRACTION: the BERT FFN on
# tessel-16x16 keeps 24 KB of its intermediate a tile (of 256 KB) and runs
# 122,497 -> 103,166 cycles.
HELD_FRACTION = 8
LIVE_FRACTION = 4


# The readers that read a kept result through a reshape of unit dimensions.
# Matmuls, convolutions and windowed ops do not: GPT-2's block on
# tessel-4x4 kept two layer norms' outputs that its matmuls read as
# matrices, and the transposed keys its batch matmul reads, and ran 2.0 %
# slower (706,190 -> 720,442 cycles); the BERT layer, whose layer norms
# read its matmuls' results so, ran 1.8 % faster (683,757 -> 671,205).
READ_THROUGH_RESHAPES = ("elementwise", "reduction", "copy")
_MATMULS = ("matmul", "batch_matmul")

# The views a kept result is read through at other shapes: those that
# tessel-keep-on-chip follows (a slice reads at other offsets, and
# ``tensor.reshape`` becomes no expand or collapse of the buffer).
_UNIT_RESHAPES = {"tensor.expand_shape", "tensor.collapse_shape"}


def tied_to_kept_results(graph: Graph, on_chip) -> frozenset[int]:
    """The ops that keep their result on chip (``on_chip``) or read one
    kept so, themselves or through their epilogue (which runs on their
    tiles): their placements were weighed together, and they are costed
    as they run by :func:`keep_on_chip`."""
    kept_writers = {result_writer(graph.ops[i]).index for i in on_chip}

    def reads_kept(op: Op) -> bool:
        return any(o.source[0] == "op" and o.source[1] in kept_writers
                   for o in op.operands)

    return frozenset(op.index for op in graph.ops
                     if op.index in on_chip or reads_kept(op)
                     or (op.epilogue is not None and reads_kept(op.epilogue)))


def result_writer(op: Op) -> Op:
    """The op whose output is ``op``'s result as later ops read it: its
    epilogue, which runs on its slices before they are stored, if any."""
    return op.epilogue or op


def held_bytes(op: Op, parts: tuple[int, ...]) -> int:
    """Bytes of ``op``'s result one tile holds: its output's slice over the
    largest part of each loop."""
    extents = tuple(-(-n // p) for n, p in zip(op.loops, parts))
    outputs = [o for o in result_writer(op).operands if o.is_output]
    return sum(o.slice_bytes(extents) for o in outputs)


def _larger_dims(extents, shape) -> list:
    """``extents`` but those of the dimensions of ``shape`` of one element."""
    return [e for e, n in zip(extents, shape) if n != 1]


def unit_reshape(shape, other) -> bool:
    """Whether ``shape`` is ``other`` with dimensions of one element added
    or removed (a reshape that reads every element at the same indices of
    the other dimensions)."""
    # A rank-0 tensor has no dimension to pair (tessel-keep-on-chip keeps
    # it in DRAM).
    return (len(shape) > 0 and len(other) > 0
            and _larger_dims(shape, shape) == _larger_dims(other, other))


def pieces(writer: Op, steps: tuple[int, ...], read_steps: tuple[int, ...],
           read) -> int:
    """How many transfers a step of a reader (at its ``read_steps``) makes
    of the result of ``writer`` (stored in steps of ``steps``; an epilogue
    stores the same slices), reading it as its operand ``read``: its
    window cut by the writer's step slices it spans."""
    out = next(o for o in writer.operands if o.is_output)
    window = [a.extent(read_steps, n) for a, n in zip(read.access, read.shape)]
    piece = [a.extent(steps, n) for a, n in zip(out.access, out.shape)]
    shape, out_shape = list(read.shape), list(out.shape)
    if not read.padded and shape != out_shape:
        # Read through a reshape of unit dimensions (``unit_reshape``): the
        # other dimensions pair up in order.
        assert unit_reshape(shape, out_shape), (shape, out_shape)
        window, shape = _larger_dims(window, shape), _larger_dims(shape, shape)
        piece, out_shape = (_larger_dims(piece, out_shape),
                            _larger_dims(out_shape, out_shape))
    count = 1
    for w, p, padded, n in zip(window, piece, shape, out_shape):
        border = padded - n
        if border and w >= padded:
            w = n                    # the whole tensor, its border not read
        elif border:
            # A window with a halo each side (a convolution's, split): the
            # slices it spans whole, and one each side.
            count *= -(-max(w - border, 1) // max(p, 1)) + 2
            continue
        count *= -(-w // max(p, 1))
    return count


def setup_bytes(arch) -> int:
    """What one transfer moves in its setup time."""
    return arch.tile.dma.setup_cycles * arch.tile.dma.bytes_per_cycle


def most_pieces(arch) -> int:
    """The most transfers whose setups cost what a DRAM load's setup and
    latency do."""
    setup = max(arch.tile.dma.setup_cycles, 1)
    return (setup + arch.dram.latency_cycles) // setup


def result_obstacle(graph: Graph, op: Op, readers: dict[int, list[int]],
                    matmuls_read_reshaped: bool = False) -> str | None:
    """Why ``op``'s result cannot stay on chip however it and its readers
    are placed; None where some placement could keep it. A matmul reads it
    through a reshape of unit dimensions only where
    ``matmuls_read_reshaped``: placed to read it in one piece
    (tessel.mapper.handover)."""
    if op.folded:
        return "runs inside another op"
    writer = result_writer(op)
    outputs = [o for o in writer.operands if o.is_output]
    if len(outputs) != 1:
        return f"it has {len(outputs)} results"
    out = outputs[0]
    if out.role == "output":
        return "its result is a model output"
    if out.seed_dims:
        return "its result starts from a broadcast bias"
    mine = readers.get(writer.index, [])
    if not mine:
        return "no op reads its result"
    for r in mine:
        reader = graph.ops[r]
        for o in reader.operands:
            if o.source != ("op", writer.index):
                continue
            if o.is_output:
                return f"{reader.label()} writes into its result"
            if "tessel.transpose_view" in o.views:
                return (f"{reader.label()} reads it at other indices (through "
                        "a transposed view)")
            if not o.padded and o.shape != out.shape:
                if not unit_reshape(o.shape, out.shape) or \
                        not set(o.views) <= _UNIT_RESHAPES:
                    return (f"{reader.label()} reads it at other indices "
                            "(a slice, or a reshape that merges or splits "
                            "dimensions)")
                if reader.kind not in READ_THROUGH_RESHAPES and not (
                        matmuls_read_reshaped and reader.kind in _MATMULS):
                    return (f"{reader.label()} reads it through a reshape, "
                            "and only elementwise ops, reductions and copies "
                            "read a kept result so, or a matmul placed to "
                            "read it in one piece")
    return None


def placement_obstacle(op: Op, choice) -> str | None:
    """Why ``op`` placed as ``choice`` cannot keep its result on chip,
    whatever its readers; None where it can."""
    # An accumulator loaded from DRAM (its fill not set in SRAM) is read by
    # the op itself (tessel-promote-to-sram).
    main = next(o for o in op.operands if o.is_output)
    part = tuple(-(-n // p) for n, p in zip(op.loops, choice.placement.parts))
    if main.read and not (main.filled and _loaded_once(
            main, part, choice.candidate.estimate.steps)):
        return "it accumulates its result through DRAM"
    if any(choice.placement.parts[l] > 1 for l in op.reduction_loops):
        return "it splits a reduction, whose partial results another op adds"
    return None


def obstacle(graph: Graph, choice, readers: dict[int, list[int]],
             choices: dict, arch, weighed: frozenset = frozenset(),
             handed_over: frozenset = frozenset()) -> str | None:
    """Why ``choice``'s op cannot keep its result on chip; None where it can
    (the SRAM aside). The pieces its readers read it in are not counted for
    a result (its writer's index, the epilogue's where it has one) in
    ``weighed`` (:func:`realign_readers` costed them) or ``handed_over``
    (the mapper's objective did, tessel.mapper.handover); a result handed
    over may also be read by a matmul through a reshape of unit
    dimensions, in the one piece the objective counted."""
    op = graph.ops[choice.op]
    writer = result_writer(op)
    handed = writer.index in handed_over
    why = result_obstacle(graph, op, readers, handed) \
        or placement_obstacle(op, choice)
    if why is not None or handed or writer.index in weighed:
        return why
    for r in readers[writer.index]:
        for o in graph.ops[r].operands:
            if o.source != ("op", writer.index):
                continue
            count = pieces(op, choice.candidate.estimate.steps,
                           choices[r].candidate.estimate.steps, o)
            if count > most_pieces(arch):
                return (f"{graph.ops[r].label()} would read it in {count} "
                        f"pieces a step, more than the {most_pieces(arch)} "
                        "whose setups cost what a DRAM load does")
    return None


@dataclass(frozen=True)
class _Held:
    """A result that may stay on chip: its writer, the bytes each of its
    tiles holds, from the writer to the last op that reads it."""

    op: Op
    part: int
    last: int
    tiles: frozenset


def _budgets(held: list) -> list:
    """The live-set constraints: for each tile and op that some held result
    spans, the results held there (the writer's own included), which may
    take ``1 / LIVE_FRACTION`` of the tile's SRAM. Tiles alike give one
    constraint."""
    rows = set()
    tiles = set().union(*(h.tiles for h in held)) if held else set()
    for t in sorted(tiles):
        for i in sorted({i for h in held if t in h.tiles
                         for i in range(h.op.index, h.last + 1)}):
            live = tuple(k for k, h in enumerate(held)
                         if t in h.tiles and h.op.index <= i <= h.last)
            rows.add((live, i, t))
    return sorted(rows)


def _choose(held: list, budgets: list, sram_bytes: int) -> set:
    """The held results to keep: the most bytes on chip (CP-SAT) such that
    on every tile, at every op, the results held there at once take at most
    ``1 / LIVE_FRACTION`` of its SRAM (``_budgets``). The ops' steps are
    not a bound: an op over which a result is held sizes its steps in what
    is left (tessel-tile-for-sram), which paid where it was measured (the
    BERT FFN on tessel-16x16, 122,497 -> 103,166 cycles, its second matmul
    over the first's result)."""
    from ortools.sat.python import cp_model

    if not held:
        return set()
    m = cp_model.CpModel()
    keep = [m.NewBoolVar(f"keep{k}") for k in range(len(held))]
    for live in sorted({live for live, _, _ in budgets}):
        m.Add(sum(held[k].part * keep[k] for k in live)
              <= sram_bytes // LIVE_FRACTION)
    m.Maximize(sum(h.part * len(h.tiles) * v for h, v in zip(held, keep)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = 10.0
    if solver.Solve(m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return set()
    return {k for k, v in enumerate(keep) if solver.Value(v)}


def _why_not(k: int, held: list, budgets: list, kept: set, graph: Graph,
             sram_bytes: int) -> str:
    """Where held result ``k``, left out, would not fit beside the kept ones."""
    for live, i, t in budgets:
        if k in live:
            others = sum(held[j].part for j in live if j in kept)
            if others + held[k].part > sram_bytes // LIVE_FRACTION:
                return (f"{held[k].part} bytes per tile with {others} held "
                        f"already at {graph.ops[i].label()} on tile {t}, of "
                        f"{sram_bytes} bytes of SRAM (1/{LIVE_FRACTION} for "
                        "results held)")
    return f"{held[k].part} bytes per tile: other results kept hold more"


# The readers weighed again to read a result on chip (:func:`realign_readers`):
# the windowed ops (poolings, depthwise convolutions). ResNet-18's max
# pooling, cut 64 x 2 x 2 by CP-SAT, would read its stem convolution's
# 3.2 MB result (cut 4 x 4 x 16) in 40 pieces a step, so the result went to
# DRAM and back; cut 4 x 8 x 8 it reads it kept in 12, and the two run
# 30,383 -> 16,891 cycles on tessel-16x16. Convolutions that read through
# a window are not: each of ResNet-18's 3 x 3 ones was predicted
# faster reading its predecessor's result kept, and ResNet-18 ran 0.6 %
# slower on tessel-4x4 (docs/spatial.md, "A pooling cut as its input is",
# also for a 10 % margin). One that reads it with no window (a 1 x 1
# convolution, no halo) is, within the pieces limit: MobileNetV2's
# projection, cut 8 x 4 x 8 by CP-SAT, would read its depthwise
# convolution's result (cut 8 x 8 x 4) in 8 pieces a step; cut 4 x 8 x 8 it
# reads it kept in 4, and the block runs 25,095 -> 19,837 cycles on
# tessel-16x16, its parts laid out beside the holders (16,565 with the ops
# before laid out for it too, tessel.mapper.part_order).
_REALIGNED_KINDS = ("window",)


def _realigned(reader: Op, writer: Op) -> bool:
    """Whether ``reader``, the one reader of ``writer``'s result, is weighed
    again to read it on chip: a windowed op, or a convolution that reads it
    with no window (each dimension indexed by at most one loop of more
    than one iteration, no pad: a 1 x 1 convolution)."""
    return reader.kind in _REALIGNED_KINDS or (
        reader.kind == "conv" and all(
            not o.padded and all(
                a.terms is not None
                and sum(reader.loops[l] > 1 for l, _ in a.terms) <= 1
                for a in o.access)
            for o in reader.operands if o.source == ("op", writer.index)))


# A result several ops of these kinds read (a layer norm's mean, variance
# and normalization reading a matmul's result) is weighed with all of
# them: BERT's layer on tessel-16x16 kept both layer norms' inputs so, the
# mean and the variance reading rows of them in 16 pieces, and ran
# 109,202 -> 106,292 cycles.
_SEVERAL_READERS_KINDS = ("elementwise", "reduction")


def realign_readers(graph: Graph, solution, arch, options):
    """``solution`` with readers placed again where that lets a result stay
    on chip and is predicted faster, and the writers whose results they
    then read kept (for :func:`keep_on_chip`'s ``weighed``). CP-SAT weighs
    every result through DRAM, so it cannot line a reader's windows up
    with its writer's slices itself.

    A result that stays in DRAM for no reason but the pieces its readers
    would read it in is weighed where its one reader reads windows of it
    or is a 1 x 1 convolution (:func:`_realigned`), or where several read
    it, all elementwise ops and reductions (``_SEVERAL_READERS_KINDS``):
    the writer not storing its result plus each reader, at CP-SAT's choice
    or at each even cut of its parallel loops over the writer's rectangle,
    loading it from the tiles holding it in the pieces its steps cut it
    into (as :func:`_recosted` costs them), against the writer and readers
    through DRAM as CP-SAT chose them. Where the cheapest is cheaper it
    replaces the readers' choices, a note says so, and the limit on pieces
    (:func:`most_pieces`) no longer applies to the result: the estimate has
    costed them (a convolution is offered only cuts within it)."""
    if len(solution.stage_cycles()) > 1:
        return solution, frozenset()
    readers = readers_of(graph.ops)
    choices = {c.op: c for c in solution.choices}
    notes, weighed = [], set()
    for index in sorted(choices):
        # As placed so far: a writer may itself be a reader cut again.
        writer_choice = choices[index]
        op = graph.ops[index]
        writer = result_writer(op)
        # Each reader once, however many of its operands read the result.
        mine = list(dict.fromkeys(readers.get(writer.index, []))) \
            if not op.folded else []
        kinds = {graph.ops[r].kind for r in mine}
        if not (len(mine) == 1 and _realigned(graph.ops[mine[0]], writer)) and \
                not (len(mine) > 1 and kinds <= set(_SEVERAL_READERS_KINDS)):
            continue
        # A reader whose own result is handed over keeps the cut it was
        # placed with, to be read whole by its readers.
        if any(r in solution.handed_over for r in mine):
            continue
        # Kept already, or kept in DRAM by more than the pieces.
        if obstacle(graph, writer_choice, readers, choices, arch) is None or \
                obstacle(graph, writer_choice, readers, choices, arch,
                         weighed=frozenset({writer.index})) is not None:
            continue
        if held_bytes(op, writer_choice.placement.parts) * HELD_FRACTION > \
                arch.tile.sram.bytes:
            continue
        steps = writer_choice.candidate.estimate.steps
        kept = estimate(op, arch, writer_choice.placement,
                        overlap_dma=options.overlap_dma, steps=steps,
                        kept_result=True)
        if kept is None:
            continue
        best = {r: _cheapest_reading_kept(graph.ops[r], op, writer,
                                          writer_choice, choices[r], arch,
                                          options)
                for r in mine}
        if None in best.values():
            continue
        # Too small a part for readers that share their loads stays in DRAM
        # (keep_on_chip).
        if held_bytes(op, writer_choice.placement.parts) < setup_bytes(arch) \
                and any(best[r][0].placement.shared for r in mine):
            continue
        through_dram = writer_choice.cycles + sum(choices[r].cycles for r in mine)
        on_chip = kept.cycles + sum(cycles for _, cycles in best.values())
        if on_chip >= through_dram:
            continue
        ops = "the two" if len(mine) == 1 else f"the {len(mine) + 1} ops"
        for r in mine:
            now, (candidate, _) = choices[r], best[r]
            how = ("as CP-SAT placed it" if candidate == now.candidate else
                   f"{_cut(candidate)} (CP-SAT: {_cut(now.candidate)})")
            notes.append(f"{graph.ops[r].label()}: reads {op.label()}'s result "
                         f"on chip, {how}: predicted {through_dram} -> "
                         f"{on_chip} cycles for {ops}")
            choices[r] = replace(now, candidate=candidate)
        weighed.add(writer.index)
    if not notes:
        return solution, frozenset()
    return (replace(solution, choices=tuple(choices[c.op] for c in solution.choices),
                    notes=solution.notes + tuple(notes)),
            frozenset(weighed))


def _cheapest_reading_kept(reader: Op, op: Op, writer: Op, writer_choice,
                           now, arch, options):
    """The cheapest placement of ``reader`` (``now``: CP-SAT's, or an even
    cut over ``op``'s rectangle) loading ``writer``'s result from the tiles
    that hold it, and its predicted cycles; None where none can."""
    steps = writer_choice.candidate.estimate.steps
    positions = [i for i, o in enumerate(reader.operands)
                 if o.source == ("op", writer.index)]
    best = None
    for candidate in (now.candidate, *_aligned_candidates(
            reader, writer_choice.placement, arch, options)):
        reads = {i: pieces(op, steps, candidate.estimate.steps,
                           reader.operands[i]) for i in positions}
        # A convolution's pieces fan out to every tile of its output
        # channels' groups, which the estimate prices too low: it keeps
        # the limit (a 1 x 1 convolution reading a depthwise result in 16
        # pieces a step, predicted 7,956 -> 6,366 cycles for the two, ran
        # 6,564 -> 15,385 on tessel-16x16).
        if reader.kind == "conv" and max(reads.values()) > most_pieces(arch):
            continue
        e = estimate(reader, arch, candidate.placement,
                     overlap_dma=options.overlap_dma,
                     steps=candidate.estimate.steps, on_chip_reads=reads)
        if e is not None and (best is None or e.cycles < best[1]):
            best = (candidate, e.cycles)
    return best


def _aligned_candidates(reader: Op, rectangle, arch, options):
    """The reader's placements on ``rectangle`` (the writer's): each even cut
    of its parallel loops into as many parts as the rectangle has tiles,
    shared where that shares a load and is cheaper, at its cheapest steps."""
    loops = [(l, reader.loops[l]) for l in reader.parallel_loops
             if reader.loops[l] >= 2]
    for cut in factorizations(rectangle.rows * rectangle.cols, loops, True):
        parts = tuple(cut.get(l, 1) for l in range(len(reader.loops)))
        if not divides(reader, parts):
            continue
        candidate = placed(reader, arch, Placement(
            rectangle.row, rectangle.col, rectangle.rows, rectangle.cols, parts),
            options.overlap_dma)
        if candidate is not None:
            yield candidate


def _cut(candidate) -> str:
    return (f"cut {'x'.join(map(str, candidate.placement.parts))}, steps "
            f"{'x'.join(map(str, candidate.estimate.steps))}")


def keep_on_chip(graph: Graph, solution, arch, overlap_dma: bool = True,
                 weighed: frozenset = frozenset()):
    """``solution`` with ``on_chip`` naming the ops whose results stay on
    chip on ``arch`` (module docstring) and a note per op considered; as
    it is where its ops run in several pipeline stages: a kept result's
    holders free it only after its last reader, which would hold the
    writer's stage back for every input. The writers and readers of a kept
    result are costed again as the lowering runs them (:func:`_recosted`):
    ``overlap_dma`` is the mapper option they were costed with. The results
    of the writers in ``weighed`` are not held to the pieces rule
    (:func:`realign_readers` costed their readers' pieces), nor those the
    objective counted as handed over (``solution.handed_over``), which a
    matmul may also read through a reshape of unit dimensions."""
    if len(solution.stage_cycles()) > 1:
        return solution
    sram_bytes = arch.tile.sram.bytes
    readers = readers_of(graph.ops)
    choices = {c.op: c for c in solution.choices}
    handed = frozenset(result_writer(graph.ops[i]).index
                       for i in solution.handed_over)
    held, notes = [], {}
    for choice in sorted(solution.choices, key=lambda c: c.op):
        op = graph.ops[choice.op]
        why = obstacle(graph, choice, readers, choices, arch, weighed, handed)
        if why is not None:
            if not op.folded and op.kind != "fill":
                notes[op.index] = f"{op.label()}: result to DRAM: {why}"
            continue
        p = choice.placement
        part = held_bytes(op, p.parts)
        if part < setup_bytes(arch) and any(
                choices[r].placement.shared
                for r in readers[result_writer(op).index]):
            notes[op.index] = (f"{op.label()}: result to DRAM: {part} bytes per "
                               f"tile, less than the {setup_bytes(arch)} a "
                               "transfer moves in its setup time, for readers "
                               "that share their loads")
            continue
        if part * HELD_FRACTION > sram_bytes:
            notes[op.index] = (f"{op.label()}: result to DRAM: {part} bytes per "
                               f"tile, more than 1/{HELD_FRACTION} of "
                               f"{sram_bytes} bytes of SRAM")
            continue
        held.append(_Held(op, part, max(readers[result_writer(op).index]),
                          frozenset((p.row + r, p.col + c) for r in range(p.rows)
                                    for c in range(p.cols))))
    budgets = _budgets(held)
    kept = _choose(held, budgets, sram_bytes)
    for k, h in enumerate(held):
        if k in kept:
            notes[h.op.index] = (f"{h.op.label()}: result on chip, {h.part} bytes "
                                 f"per tile on {len(h.tiles)} tiles, until "
                                 f"{graph.ops[h.last].label()}"
                                 + (", placed with its readers to hand it over"
                                    if h.op.index in solution.handed_over else ""))
        else:
            notes[h.op.index] = (f"{h.op.label()}: result to DRAM: " +
                                 _why_not(k, held, budgets, kept, graph, sram_bytes))
    on_chip = frozenset(held[k].op.index for k in kept)
    return replace(solution, on_chip=on_chip,
                   choices=_recosted(graph, solution.choices, on_chip, arch,
                                     overlap_dma),
                   notes=solution.notes + tuple(notes[i] for i in sorted(notes)))


def _recosted(graph: Graph, choices, on_chip: frozenset, arch,
              overlap_dma: bool) -> tuple:
    """``choices`` with the ops that write or read a result kept on chip
    costed at their steps as they then run: the writer stores nothing, a
    reader loads the result's slices from the tiles holding them, in the
    pieces their steps cut it into (:func:`pieces`), and their weights'
    first loads run during the ops before (tessel.mapper.early_weights).
    The placements and steps stay as chosen; the predicted cycles follow
    the lowering (what ``tessel map --explain`` and the cost model's error
    per layer show)."""
    by_op = {c.op: c for c in choices}
    held_by_writer = {result_writer(graph.ops[i]).index: graph.ops[i] for i in on_chip}
    out = []
    for choice in choices:
        op = graph.ops[choice.op]
        steps = choice.candidate.estimate.steps
        reads = {}
        for position, o in enumerate(op.operands):
            writer = held_by_writer.get(o.source[1]) if o.source[0] == "op" else None
            if writer is not None and not o.is_output:
                reads[position] = pieces(
                    writer, by_op[writer.index].candidate.estimate.steps, steps, o)
        if choice.op not in on_chip and not reads:
            out.append(choice)
            continue
        e = estimate(op, arch, choice.placement, overlap_dma=overlap_dma,
                     steps=steps, kept_result=choice.op in on_chip,
                     on_chip_reads=reads, early_weights=True)
        out.append(choice if e is None else
                   replace(choice, candidate=replace(choice.candidate, estimate=e)))
    return tuple(out)
