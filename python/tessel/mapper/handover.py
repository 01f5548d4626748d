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
from .on_chip import (HELD_FRACTION, READ_THROUGH_RESHAPES, held_bytes,
                      most_pieces, pieces, placement_obstacle, result_obstacle,
                      result_writer, setup_bytes, unit_reshape)
from .space import Candidate, Choice, Problem, placed, placement_key

# The readers whose reads of a kept result the cost model prices well.
_READERS = ("elementwise", "reduction", "copy", "matmul", "batch_matmul")

# A hand-over counts only for what it saves beyond this fraction of the
# cycles of its writer and readers as placed: where the ops are small the
# cost model's error is larger than what it saves. The int8 MLP on
# tessel-4x4 placed its first matmul on half the tiles to read its weights'
# transpose kept, predicted 2,886 -> 2,466 cycles, and ran 1,903 -> 2,151:
# its requantizing epilogue ran on half the tiles.
MARGIN = 0.25

# Passes of offering aligned cuts along the graph's edges, at most.
_ROUNDS = 8


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

    def ops(self) -> list[int]:
        """The writer and the readers."""
        return [self.writer] + [r for r, _ in self.reads]

    def most_saved(self) -> int:
        """The most any choice of candidates saves (a bound)."""
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


def with_handovers(problem: Problem) -> Problem:
    """``problem`` with the candidates that line results' writers and
    readers up (:func:`with_aligned_candidates`) and the hand-overs its
    objective counts (:func:`handovers`). A candidate offered so is chosen
    only to hand a result over (``Problem.aligned``): chosen for its own
    cycles, predicted within the cost model's error of the cut it
    displaces, it made the small int8 GPT-2 block's layer norm on
    tessel-16x16 run 11,440 -> 11,739 cycles."""
    graph, arch, options = problem.graph, problem.arch, problem.options
    cands = with_aligned_candidates(graph, problem.cands, arch, options)
    known = {(i, placement_key(c)) for i, cs in enumerate(problem.cands)
             for c in cs}
    return replace(problem, cands=cands,
                   handovers=handovers(graph, cands, arch, options),
                   aligned=frozenset((i, placement_key(c))
                                     for i, cs in enumerate(cands) for c in cs)
                   - known)


def _edges(graph: Graph):
    """(writer op, its readers: (reader, positions of its operands that read
    the result)) for each result that some placement could hand over: its
    readers elementwise ops, reductions, copies or matmuls, none of them an
    epilogue (which runs on its producer's slices, not as placed itself)."""
    readers = readers_of(graph.ops)
    for op in graph.ops:
        if op.kind == "fill" or result_obstacle(graph, op, readers, True):
            continue
        writer = result_writer(op)
        mine = [graph.ops[r] for r in sorted(set(readers[writer.index]))]
        if all(r.kind in _READERS and not r.folded for r in mine):
            yield op, [(r.index, tuple(i for i, o in enumerate(r.operands)
                                       if o.source == ("op", writer.index)))
                       for r in mine]


def _paired_dims(out, read) -> list[tuple[int, int]] | None:
    """The dimensions of a result (``out``) and of its reader's operand
    (``read``) of more than one element, in order (the same indices, across
    a reshape of unit dimensions); those of one element are never split."""
    if read.padded or not (tuple(read.shape) == tuple(out.shape)
                           or unit_reshape(read.shape, out.shape)):
        return None
    return list(zip([d for d, n in enumerate(out.shape) if n != 1],
                    [d for d, n in enumerate(read.shape) if n != 1]))


def aligned_parts(writer: Op, reader: Op, position: int, parts: tuple[int, ...],
                  from_writer: bool) -> tuple[int, ...] | None:
    """The cut of the reader (``from_writer``) or of the writer that cuts
    the result into the same parts as ``parts`` of the other, on the same
    rectangle, so that each of the reader's parts reads one of the writer's
    whole and no part is read twice: each loop that indexes a dimension of
    the result alone takes the other's parts of the loop indexing that
    dimension, every other loop 1. Part ``i`` runs on the rectangle's tile
    ``i`` (row-major, the last loop fastest, unless
    :mod:`tessel.mapper.part_order` finds an order that reads nearer the
    holders, for the reader or, for its readers, the writer): where the
    split loops come in the same order in both ops a part is read on the
    tile that holds it, otherwise on another (a transpose's rows read from
    the heads that computed them). None where there is no such cut: a split
    loop indexes no dimension alone, or would split a reduction loop."""
    # The writer's own result: an epilogue writes the same elements, at
    # indices of its own loops.
    out = next(o for o in writer.operands if o.is_output)
    read = reader.operands[position]
    dims = _paired_dims(out, read)
    if dims is None:
        return None
    target = reader if from_writer else writer
    to_target = {}
    for dw, dr in dims:
        lw, lr = out.access[dw].loop(), read.access[dr].loop()
        if lw is None or lr is None:
            return None
        ls, lt = (lw, lr) if from_writer else (lr, lw)
        to_target[ls] = lt
    new = [1] * len(target.loops)
    for ls in (l for l, p in enumerate(parts) if p > 1):
        lt = to_target.get(ls)
        if lt is None or lt in target.reduction_loops:
            return None
        new[lt] = parts[ls]
    # The other's parts of the same extent: a short last part lines up
    # with a short last part (a ViT's 197 tokens over 16 tiles).
    return tuple(new)


def with_aligned_candidates(graph: Graph, cands: list, arch, options) -> list:
    """``cands`` with, for each result that may be handed over, the cuts of
    each reader aligned with each of its writer's candidates and the cuts
    of the writer aligned with each of its readers', on the same rectangle
    (:func:`aligned_parts`), costed as any candidate is. Passes repeat
    until no cut is new, so a cut travels along a chain: BERT's batch
    matmul of probabilities and values offers its cut to the softmax's
    normalization, which offers it to the scores' batch matmul, which
    offers it to the softmax's reductions."""
    cands = [list(cs) for cs in cands]
    known = [{placement_key(c) for c in cs} for cs in cands]
    tried = set()
    links = [(op, graph.ops[r], position, from_writer)
             for op, mine in _edges(graph) for r, positions in mine
             for position in positions for from_writer in (True, False)]
    for _ in range(_ROUNDS):
        added = False
        for writer, reader, position, from_writer in links:
            source, target = (writer, reader) if from_writer else (reader, writer)
            for c in list(cands[source.index]):
                p = c.placement
                parts = aligned_parts(writer, reader, position, p.parts, from_writer)
                key = (target.index, p.rows, p.cols, parts)
                if parts is None or key in tried:
                    continue
                tried.add(key)
                new = placed(target, arch, Placement(0, 0, p.rows, p.cols, parts),
                             options.overlap_dma)
                if new is not None and placement_key(new) not in known[target.index]:
                    known[target.index].add(placement_key(new))
                    cands[target.index].append(new)
                    added = True
        if not added:
            break
    return [tuple(cs) for cs in cands]


def handovers(graph: Graph, cands: list, arch, options) -> tuple[Handover, ...]:
    """The results that may stay on chip under some choice of candidates,
    with the cycles each choice saves (:class:`Handover`)."""
    read_cycles: dict = {}
    out = []
    for op, mine in _edges(graph):
        stored = _stored(op, cands[op.index], arch, options)
        reads = [(r, _pairs(op, graph.ops[r], positions, cands[op.index], cands[r],
                            stored, arch, options, read_cycles))
                 for r, positions in mine] if stored else []
        if stored and all(pairs for _, pairs in reads):
            out.append(Handover(op.index, stored, tuple(reads)))
    return tuple(out)


def _stored(op: Op, cands, arch, options) -> dict:
    """For each of ``op``'s candidates that may keep its result, the cycles
    it saves not storing it, less its margin."""
    stored = {}
    for c in cands:
        if placement_obstacle(op, Choice(op.index, c)) or \
                held_bytes(op, c.placement.parts) * HELD_FRACTION > \
                arch.tile.sram.bytes:
            continue
        kept = estimate(op, arch, c.placement, overlap_dma=options.overlap_dma,
                        steps=c.estimate.steps, kept_result=True)
        if kept is not None:
            stored[placement_key(c)] = c.estimate.cycles - kept.cycles - _margin(c)
    return stored


def _pairs(writer: Op, reader: Op, positions, writer_cands, reader_cands,
           stored: dict, arch, options, read_cycles: dict) -> dict:
    """For each pair of candidates (writer's that may keep the result,
    reader's) in which each of the reader's parts reads one of the
    writer's whole, in few pieces a step, the cycles the reader saves
    reading it from SRAM, less its margin."""
    result = next(o for o in result_writer(writer).operands if o.is_output)
    through_reshape = reader.kind not in READ_THROUGH_RESHAPES and any(
        tuple(reader.operands[i].shape) != tuple(result.shape) for i in positions)
    pairs = {}
    for cw in writer_cands:
        w = placement_key(cw)
        if w not in stored:
            continue
        aligned = {aligned_parts(writer, reader, i, cw.placement.parts, True)
                   for i in positions}
        for cr in reader_cands:
            # Only reads of whole parts, each by one tile: the estimate of
            # reads that fan out over the NoC misses their contention (a
            # BERT layer's softmax placed to read its scores from three
            # tiles each, predicted 9.9 k cycles, ran 33 k).
            if (cr.placement.rows, cr.placement.cols) != \
                    (cw.placement.rows, cw.placement.cols) or \
                    aligned != {cr.placement.parts}:
                continue
            counts = {i: pieces(writer, cw.estimate.steps, cr.estimate.steps,
                                reader.operands[i]) for i in positions}
            most = max(counts.values())
            # A matmul reads through a reshape only its own slice whole:
            # in pieces, GPT-2's block ran slower (on_chip).
            if most > most_pieces(arch) or (through_reshape and most > 1):
                continue
            # A reader that shares its loads fetches a small part from each
            # holder apart (on_chip.keep_on_chip's rule).
            if cr.placement.shared and \
                    held_bytes(writer, cw.placement.parts) < setup_bytes(arch):
                continue
            key = (reader.index, placement_key(cr), tuple(sorted(counts.items())))
            if key not in read_cycles:
                e = estimate(reader, arch, cr.placement,
                             overlap_dma=options.overlap_dma,
                             steps=cr.estimate.steps, on_chip_reads=counts)
                read_cycles[key] = None if e is None else e.cycles
            if read_cycles[key] is not None:
                pairs[w, placement_key(cr)] = (cr.estimate.cycles - read_cycles[key]
                                               - _margin(cr))
    return pairs


def _margin(candidate: Candidate) -> int:
    """The part of a candidate's cycles a saving must exceed (``MARGIN``)."""
    return int(MARGIN * candidate.estimate.cycles)
