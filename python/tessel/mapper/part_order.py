"""The order in which each op's parts are laid onto its rectangle.

Part ``i`` of an op runs on tile ``i`` of its rectangle in row-major order,
the parts numbered with the last loop fastest, unless the mapping's
``order`` lists the loops otherwise (``#tessel.mapping``, docs/lowering.md).
In a ``shared`` placement the tiles that read the same slice of an input
differ only in the split loops that do not index it, so the order decides
how far apart they lie, and with it the multicast trees that carry the
slice: the XY routes from the leader to each reader (docs/simulator.md,
*Multicast*), every link of which the transfer shares with every other
flow on it.

ResNet-18's second convolution on ``tessel-16x16`` (parts ``[1, 4, 8, 8]``
over batch, output channels, rows and columns) laid out in the loops'
order puts the four tiles that read each input window four grid rows
apart, the window's multicast down twelve links of a column, and every
column's links carry four windows, the DRAM's traffic to the tiles below
and the weights' trees crossing them. With the output channels fastest
the four tiles sit side by side, each window crosses three links, and the
weights (147 KB, against the windows' 1.3 MB) take the long trees: 7,900 →
7,668 cycles simulated (docs/mapper.md, *Parts laid out by their
multicasts*).

:func:`order_parts` gives each ``shared`` op of two or more split loops the
order of its split loops that leaves the busiest NoC link the fewest bytes
of its shared loads to carry (:func:`link_loads`: each slice along the XY
route from the leader's DRAM channel to the leader, then along the
leader's multicast tree, each tile of a set leading in turn), where the
busiest link's bytes it saves take at least ``1 / SAVING_DIVISOR`` of the
op's predicted cycles at the link's rate. The busiest link, not the bytes
over all links: MobileNetV2's projection (1 x 1, 144 → 24 channels, eight
tiles sharing each 56 KB window) crosses half the bytes x links with its
output channels fastest, but its busiest link, the leaders' DRAM routes
counted, carries 8 % more, and it ran 1,718 cycles slower. The cost model
prices every order alike (it knows the rectangle, not which tile runs
which part), so the choice is made here, after the solver, by the same
XY routes the simulator takes. Ops whose results stay on chip or that read
one keep the loops' order: their placements were lined up with each
other's parts (:mod:`tessel.mapper.handover`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import permutations
from typing import Iterator

from ..runtime.timing import dram_channel_for, xy_route
from .cost import Placement, arch_key, sharers
from .graph import Graph, Op
from .on_chip import tied_to_kept_results
from .space import Choice, Solution

# An order is taken only where the bytes it takes off the busiest link, at
# the link's rate, are at least 1 / SAVING_DIVISOR of the op's predicted
# cycles. At 1/64 ViT's patch embedding on tessel-16x16 (492 of 12,646
# cycles predicted) took its output channels fastest and its block ran 667
# cycles slower (docs/mapper.md, *Parts laid out by their multicasts*).
SAVING_DIVISOR = 20


def part_coords(parts: tuple[int, ...], index: int) -> list[int]:
    """Part ``index``'s place along each loop (row-major over ``parts``,
    the last loop fastest)."""
    coords = [0] * len(parts)
    for loop in reversed(range(len(parts))):
        index, coords[loop] = divmod(index, parts[loop])
    return coords


def tile_of_part(placement: Placement, index: int) -> tuple[int, int]:
    """The tile that runs part ``index`` (row-major over the parts, the
    last loop fastest), as ``MappingAttr::getTileOfPart`` places it."""
    parts = placement.parts
    if placement.order:
        coords = part_coords(parts, index)
        index = 0
        for loop in placement.order:
            index = index * parts[loop] + coords[loop]
    return (placement.row + index // placement.cols,
            placement.col + index % placement.cols)


def _tree(leader: tuple[int, int], span: dict[int, list[int]]) -> Iterator[tuple]:
    """The directed links of the XY multicast tree from ``leader`` to the
    readers whose rows in each column span ``span[column]`` (``[lowest,
    highest]``): along the leader's row to every reader's column, then up
    and down each column to its farthest reader (docs/simulator.md,
    *Multicast*)."""
    lr, lc = leader
    cols = list(span) + [lc]
    for c in range(lc, min(cols), -1):
        yield (lr, c), (lr, c - 1)
    for c in range(lc, max(cols)):
        yield (lr, c), (lr, c + 1)
    for c, (lo, hi) in span.items():
        for r in range(lr, lo, -1):
            yield (r, c), (r - 1, c)
        for r in range(lr, hi):
            yield (r, c), (r + 1, c)


def _column_spans(readers) -> dict[int, list[int]]:
    """Per column of ``readers`` (tiles), its lowest and highest reader's
    row: what :func:`_tree` needs of them."""
    span: dict[int, list[int]] = {}
    for r, c in readers:
        lo_hi = span.setdefault(c, [r, r])
        lo_hi[0], lo_hi[1] = min(lo_hi[0], r), max(lo_hi[1], r)
    return span


def _sharing_sets(placement: Placement, tiles, indexed_loops) -> list[list]:
    """The sets of tiles that read the same slices of an input indexed by
    ``indexed_loops``: those at the same place along the split loops among
    them."""
    parts = placement.parts
    indexed = [loop for loop, p in enumerate(parts)
               if p > 1 and loop in indexed_loops]
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for index, tile in enumerate(tiles):
        coords = part_coords(parts, index)
        groups.setdefault(tuple(coords[l] for l in indexed), []).append(tile)
    return list(groups.values())


def _shared_inputs(op: Op, placement: Placement) -> tuple:
    """Per input of ``op`` several tiles read alike under ``placement``,
    the loops it indexes and the bytes of a tile's slices over the op: all
    :func:`link_loads` reads of ``op``."""
    parts = placement.parts
    extents = tuple(-(-n // p) for n, p in zip(op.loops, parts))
    return tuple((o.indexed_loops, o.slice_bytes(extents)) for o in op.operands
                 if o.read and not o.is_output
                 and sharers(o, parts, op.loops) > 1)


def link_loads(op: Op, placement: Placement, arch) -> Counter:
    """Bytes each NoC link carries for the loads of ``op``'s shared inputs
    under ``placement``: per input that several tiles read alike, per set
    of tiles reading the same slices, a tile's slices over the whole op
    along the XY route from the leader's DRAM channel to the leader and
    along the leader's multicast tree, each of the set's tiles leading an
    even share (tessel-share-loads rotates the lead from step to step).

    A ranking of the orders, not a prediction of the op's traffic: the leader
    reads through its first DMA channel's DRAM channel (the lead may go to a
    tile on an emptier one, or on less loaded links), windows cut into cells
    for their halos count whole, a set larger than one multicast carries counts
    as one tree (tessel-share-loads cuts it into even chunks of at most 58,
    ``runtime.isa.MAX_MULTICAST_DESTINATIONS``), and the loads no other tile
    shares, the stores, and whether a weight loads during the op before or
    stays resident are left out. Counted as cut, ResNet-18's 64-channel
    convolutions on tessel-16x16 (their weights shared by 64 tiles, cut into
    two multicasts of 32) would keep the loops' order, which measured slower
    (the second: 7,668 cycles laid out, 7,900 not).
    """
    tiles = [tile_of_part(placement, i) for i in range(placement.tiles)]
    loads: Counter = Counter()
    for indexed_loops, share in _shared_inputs(op, placement):
        for readers in _sharing_sets(placement, tiles, indexed_loops):
            each = share / len(readers)
            span = _column_spans(readers)
            for leader in readers:
                attach = tuple(arch.dram.attach[
                    dram_channel_for(arch, leader[0], leader[1], 0)])
                links = set(xy_route(attach, leader))
                links.update(_tree(leader, span))
                for link in links:
                    loads[link] += each
    return loads


def link_cycles(arch, byte_count: float) -> float:
    """The cycles ``byte_count`` take on one link."""
    return byte_count / arch.noc.link_bytes_per_cycle


def best_order(op: Op, placement: Placement, arch,
               weighed: dict | None = None) -> tuple[tuple[int, ...], float, float]:
    """(order, its busiest link's bytes, the loops' own order's): the order
    of the split loops whose loads leave the busiest link least to carry
    (:func:`link_loads`; on ties, the fewest bytes over all links), the
    unsplit loops first in their own order; ``()`` where none does better
    than the loops' own order. ``weighed`` keeps the answers of one
    mapping by the shape of the question."""
    weighed = {} if weighed is None else weighed
    key = (arch_key(arch), placement, _shared_inputs(op, placement))
    if key not in weighed:
        weighed[key] = _best_order(op, placement, arch)
    return weighed[key]


def _best_order(op: Op, placement: Placement, arch) -> tuple[tuple[int, ...], float, float]:
    split = [loop for loop, p in enumerate(placement.parts) if p > 1]
    unsplit = [loop for loop, p in enumerate(placement.parts) if p == 1]

    def cost(order):
        loads = link_loads(op, replace(placement, order=order), arch)
        return (max(loads.values(), default=0.0), sum(loads.values()))

    own = cost(())
    best, best_cost = (), own
    for perm in permutations(split):
        if list(perm) == split:
            continue
        order = tuple(unsplit) + perm
        c = cost(order)
        if c < best_cost:
            best, best_cost = order, c
    return best, best_cost[0], own[0]


def order_parts(graph: Graph, solution: Solution, arch) -> Solution:
    """``solution`` with each ``shared`` op of two or more split loops laid
    out in :func:`best_order` where that saves enough (module docstring),
    and a note per op."""
    tied = tied_to_kept_results(graph, solution.on_chip)
    choices: list[Choice] = []
    notes = []
    weighed: dict = {}
    for choice in solution.choices:
        op = graph.ops[choice.op]
        p = choice.placement
        if op.folded or not p.shared or choice.op in tied or \
                sum(n > 1 for n in p.parts) < 2:
            choices.append(choice)
            continue
        order, busiest, own = best_order(op, p, arch, weighed)
        saved = link_cycles(arch, own - busiest)
        if not order or saved * SAVING_DIVISOR < choice.cycles:
            choices.append(choice)
            continue
        choices.append(replace(choice, candidate=replace(
            choice.candidate, placement=replace(p, order=order))))
        notes.append(f"{op.label()}: parts laid out in loop order "
                     f"[{', '.join(map(str, order))}], the last fastest: the "
                     f"busiest link carries {own:,.0f} -> {busiest:,.0f} bytes "
                     f"of its shared loads ({saved:,.0f} cycles less at its "
                     f"rate; the op is predicted {choice.cycles:,})")
    if not notes:
        return solution
    return replace(solution, choices=tuple(choices),
                   notes=solution.notes + tuple(notes))
