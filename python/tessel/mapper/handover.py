"""Results handed over on chip, weighed with the placements.

A result stays on chip only where its readers read the slices its writer
computed in few pieces (:func:`tessel.mapper.on_chip.obstacle`), and that
depends on how both are cut. Weighed after the placements, a result almost
never qualifies: each op's cut is chosen for itself, as if every result
went through DRAM. BERT's attention scores (``12 x 128 x 128``) were cut by
query rows and key columns for the batch matmul and by heads and rows for
the softmax's reductions, 16 pieces a step apart, and went to DRAM and back
five times.

So the mappers weigh the hand-over with the placements: the objective
(:meth:`tessel.mapper.space.Problem.objective`) takes off, for each result
whose writer and every reader are placed so that each reader's part reads
one of the writer's parts whole, in few pieces a step, the cycles the
writer saves not storing it and each reader saves loading it from SRAM
(the cost model, as :func:`tessel.mapper.on_chip._recosted` costs them
once chosen), less a margin. And each reader is offered the cuts aligned
with its writer's candidates, and each writer those aligned with its
readers' (:func:`aligned_parts`), which no cut chosen for the op alone need
be. The SRAM the held results take is left to
:func:`tessel.mapper.on_chip.keep_on_chip`, as for any result.

Handed over: results read by elementwise ops, reductions, copies and
matmuls, none of them an epilogue (which runs on its producer's slices).
Convolutions and windowed ops read through windows with halos, whose reads
the cost model prices too low where they fan out over the NoC
(docs/spatial.md, *A pooling cut as its input is*); they keep their own
rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from .cost import Placement, estimate
from .graph import Graph, Op, readers_of
from .on_chip import (HELD_FRACTION, _READ_THROUGH_RESHAPES, _result_writer,
                      held_bytes, most_pieces, obstacle, pieces, setup_bytes,
                      unit_reshape)
from .space import Candidate, Choice, divides, placed

# The readers whose reads of a kept result the cost model prices well.
_READERS = ("elementwise", "reduction", "copy", "matmul", "batch_matmul")

# A hand-over counts only for what it saves beyond this fraction of the
# cycles of its writer and readers as placed: where the ops are small the
# cost model's error is larger than what it saves. The int8 MLP on
# tessel-4x4 placed its first matmul on half the tiles to read its weights'
# transpose kept, predicted 2,886 -> 2,466 cycles, and ran 1,903 -> 2,151:
# its requantizing epilogue ran on half the tiles.
MARGIN = 0.25


def placement_key(candidate: Candidate) -> Placement:
    """A candidate's placement wherever its rectangle lies (CP-SAT places
    the rectangles after choosing)."""
    return replace(candidate.placement, row=0, col=0)


@dataclass(frozen=True)
class Handover:
    """A result that may stay on chip: its writer's op, the cycles each of
    the writer's candidates saves not storing it, and for each reader the
    cycles saved by each pair of candidates (writer's, reader's) in which
    each of the reader's parts reads one of the writer's whole, in few
    pieces a step; each less its margin (``MARGIN``). A pair not listed
    keeps the result in DRAM."""

    writer: int
    stored: Mapping[Placement, int]
    reads: tuple[tuple[int, Mapping[tuple[Placement, Placement], int]], ...]

    def most_saved(self) -> int:
        return max(0, max(self.stored.values())) + sum(
            max(0, max(pairs.values())) for _, pairs in self.reads)

    def saved(self, chosen: Mapping[int, Placement]) -> int | None:
        """Cycles saved under ``chosen`` (op -> placement key), or None
        where the result goes to DRAM."""
        w = chosen[self.writer]
        if w not in self.stored:
            return None
        total = self.stored[w]
        for reader, pairs in self.reads:
            pair = (w, chosen[reader])
            if pair not in pairs:
                return None
            total += pairs[pair]
        return total


def _readers(graph: Graph, op: Op, readers: dict[int, list[int]]):
    """(reader, positions of its operands reading ``op``'s result), or None
    where a reader is not one whose reads are handed over."""
    writer = _result_writer(op)
    out = []
    for r in sorted(set(readers.get(writer.index, ()))):
        reader = graph.ops[r]
        # An epilogue runs on its producer's slices, not as placed itself.
        if reader.kind not in _READERS or reader.folded:
            return None
        out.append((r, tuple(i for i, o in enumerate(reader.operands)
                             if o.source == ("op", writer.index) and not o.is_output)))
    return out or None


def _paired_dims(out, read) -> list[tuple[int, int]] | None:
    """The dimensions of a result (``out``) and of its reader's operand
    (``read``) that hold the same indices, in order: all of them, or those
    of more than one element across a reshape of unit dimensions."""
    if read.padded:
        return None
    if tuple(read.shape) == tuple(out.shape):
        return list(zip(range(len(out.shape)), range(len(read.shape))))
    if not unit_reshape(read.shape, out.shape):
        return None
    mine = [d for d, n in enumerate(out.shape) if n != 1]
    theirs = [d for d, n in enumerate(read.shape) if n != 1]
    return list(zip(mine, theirs))


def _loop_of(access) -> int | None:
    """The loop a dimension is indexed by alone (``i``), or None."""
    if access.terms is None or access.const != 0 or len(access.terms) != 1:
        return None
    loop, coefficient = access.terms[0]
    return loop if coefficient == 1 else None


def aligned_parts(writer: Op, reader: Op, position: int, parts: tuple[int, ...],
                  from_writer: bool) -> tuple[int, ...] | None:
    """The cut of the reader (``from_writer``) or of the writer that cuts
    the result into the same parts as ``parts`` of the other, on the same
    rectangle, so that each of the reader's parts reads one of the writer's
    whole and no part is read twice: each loop that indexes a dimension of
    the result alone takes the other's parts of the loop indexing that
    dimension, every other loop 1. Part ``i`` runs on the rectangle's tile
    ``i`` (row-major, the last loop fastest): where the split loops come in
    the same order in both ops a part is read on the tile that holds it,
    otherwise on another (a transpose's rows read from the heads that
    computed them). None where there is no such cut: a split loop indexes
    no dimension alone, or would split a reduction loop, or the cut is
    uneven."""
    out = next(o for o in _result_writer(writer).operands if o.is_output)
    read = reader.operands[position]
    dims = _paired_dims(out, read)
    if dims is None:
        return None
    source, target = (writer, reader) if from_writer else (reader, writer)
    to_target = {}
    for dw, dr in dims:
        lw, lr = _loop_of(out.access[dw]), _loop_of(read.access[dr])
        if lw is None or lr is None:
            return None
        ls, lt = (lw, lr) if from_writer else (lr, lw)
        to_target[ls] = lt
    new = [1] * len(target.loops)
    split = [l for l, p in enumerate(parts) if p > 1]
    for ls in split:
        lt = to_target.get(ls)
        if lt is None or lt in target.reduction_loops:
            return None
        new[lt] = parts[ls]
    new = tuple(new)
    return new if divides(target, new) else None


def edges(graph: Graph):
    """(writer op, its readers as :func:`_readers` gives them) for each
    result that may be handed over."""
    readers = readers_of(graph.ops)
    for op in graph.ops:
        if op.folded or op.kind == "fill":
            continue
        mine = _readers(graph, op, readers)
        if mine is not None:
            yield op, mine


def with_aligned_candidates(graph: Graph, cands: list, arch, options,
                            rounds: int = 8) -> list:
    """``cands`` with, for each result that may be handed over, the cuts of
    each reader aligned with each of its writer's candidates and the cuts
    of the writer aligned with each of its readers', on the same rectangle
    (:func:`aligned_parts`), costed as any candidate is. Passes repeat
    until no cut is new (at most ``rounds``), so a cut travels along a
    chain: BERT's batch matmul of probabilities and values offers its cut
    to the softmax's normalization, which offers it to the scores' batch
    matmul, which offers it to the softmax's reductions."""
    cands = [list(cs) for cs in cands]
    pairs = list(edges(graph))
    for _ in range(rounds):
        added = False
        for op, mine in pairs:
            for r, positions in mine:
                for position in positions:
                    for source, target, from_writer in (
                            (op.index, r, True), (r, op.index, False)):
                        known = {placement_key(c) for c in cands[target]}
                        for c in list(cands[source]):
                            p = c.placement
                            parts = aligned_parts(op, graph.ops[r], position,
                                                  p.parts, from_writer)
                            if parts is None:
                                continue
                            new = placed(graph.ops[target], arch,
                                         Placement(0, 0, p.rows, p.cols, parts),
                                         options.overlap_dma)
                            if new is not None and placement_key(new) not in known:
                                known.add(placement_key(new))
                                cands[target].append(new)
                                added = True
        if not added:
            break
    return [tuple(cs) for cs in cands]


def handovers(graph: Graph, cands: list, arch, options) -> tuple[Handover, ...]:
    """The results that may stay on chip under some choice of candidates,
    with the cycles each choice saves (:class:`Handover`)."""
    readers = readers_of(graph.ops)
    limit = most_pieces(arch)
    out = []
    for op, mine in edges(graph):
        writer = _result_writer(op)
        stored = {}
        for c in cands[op.index]:
            choice = Choice(op.index, c)
            # Everything but the pieces, which the pairs below count.
            if obstacle(graph, choice, readers, {}, arch,
                        weighed=frozenset({writer.index})) is not None:
                continue
            part = held_bytes(op, c.placement.parts)
            if part * HELD_FRACTION > arch.tile.sram.bytes:
                continue
            kept = estimate(op, arch, c.placement, overlap_dma=options.overlap_dma,
                            steps=c.estimate.steps, kept_result=True)
            if kept is not None:
                stored[placement_key(c)] = (c.estimate.cycles - kept.cycles
                                            - _margin(c))
        if not stored:
            continue
        reads = []
        for r, positions in mine:
            reader = graph.ops[r]
            result = next(o for o in writer.operands if o.is_output)
            through_reshape = any(
                tuple(reader.operands[i].shape) != tuple(result.shape)
                for i in positions) and reader.kind not in _READ_THROUGH_RESHAPES
            pairs = {}
            for cw in cands[op.index]:
                w = placement_key(cw)
                if w not in stored:
                    continue
                on = (cw.placement.rows, cw.placement.cols)
                aligned = {aligned_parts(op, reader, i, cw.placement.parts, True)
                           for i in positions}
                for cr in cands[r]:
                    # Only reads of whole parts, each by one tile: the
                    # estimate of reads that fan out over the NoC misses
                    # their contention (a BERT layer's softmax placed to
                    # read its scores from three tiles each, predicted
                    # 9.9 k cycles, ran 33 k).
                    if (cr.placement.rows, cr.placement.cols) != on or \
                            aligned != {cr.placement.parts}:
                        continue
                    counts = {i: pieces(op, cw.estimate.steps, cr.estimate.steps,
                                        reader.operands[i]) for i in positions}
                    most = max(counts.values())
                    # A matmul reading through a reshape reads its own
                    # slice whole: in pieces it ran slower (on_chip).
                    if most > limit or (through_reshape and most > 1):
                        continue
                    if cr.placement.shared and held_bytes(
                            op, cw.placement.parts) < setup_bytes(arch):
                        continue
                    e = _read_on_chip(reader, cr, arch, options, counts)
                    if e is not None:
                        pairs[w, placement_key(cr)] = (cr.estimate.cycles - e
                                                       - _margin(cr))
            if not pairs:
                break
            reads.append((r, pairs))
        else:
            out.append(Handover(op.index, stored, tuple(reads)))
    return tuple(out)


def _margin(candidate: Candidate) -> int:
    return int(MARGIN * candidate.estimate.cycles)


_READS: dict = {}


def _read_on_chip(reader: Op, candidate: Candidate, arch, options,
                  counts: dict[int, int]) -> int | None:
    key = (id(reader), placement_key(candidate), candidate.estimate.steps,
           tuple(sorted(counts.items())), options.overlap_dma, id(arch))
    if key not in _READS:
        e = estimate(reader, arch, candidate.placement,
                     overlap_dma=options.overlap_dma,
                     steps=candidate.estimate.steps, on_chip_reads=counts)
        _READS[key] = (reader, arch, None if e is None else e.cycles)
    return _READS[key][2]


def saved_cycles(found: tuple[Handover, ...], choices) -> tuple[int, frozenset]:
    """Cycles saved by the results handed over under ``choices``, and the
    writers whose results they are."""
    chosen = {c.op: placement_key(c.candidate) for c in choices}
    total, writers = 0, set()
    for h in found:
        s = h.saved(chosen)
        # What saves nothing beyond its margin is not counted (CP-SAT leaves
        # it out too).
        if s is not None and s > 0:
            total += s
            writers.add(h.writer)
    return total, frozenset(writers)
