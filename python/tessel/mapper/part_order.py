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

:func:`order_parts` gives each ``shared`` op of two or more split loops,
not tied to a result kept on chip (below), the order of its split loops
that leaves the busiest NoC link the fewest bytes of its shared loads to
carry (:func:`link_loads`: each slice along the XY route from the
leader's DRAM channel to the leader, then along the leader's multicast
tree, each tile of a set leading in turn), where the
busiest link's bytes it saves take at least ``1 / SAVING_DIVISOR`` of the
op's predicted cycles at the link's rate. The busiest link, not the bytes
over all links: MobileNetV2's projection (1 x 1, 144 → 24 channels, eight
tiles sharing each 56 KB window) crosses half the bytes x links with its
output channels fastest, but its busiest link, the leaders' DRAM routes
counted, carries 8 % more, and it ran 1,718 cycles slower. The cost model
prices every order alike (it knows the rectangle, not which tile runs
which part), so the choice is made here, after the solver, by the same
XY routes the simulator takes.

An op that reads a result kept on chip (:mod:`tessel.mapper.on_chip`) reads
it from the tiles that hold it, so its order decides how far each piece
travels. :func:`order_parts` lays it out in the order of its split loops
that moves the fewest bytes times hops from the holders
(:func:`kept_read_hops`), where that is fewer than in the loops' own order.
MobileNetV2's projection (1 x 1, cut over output channels, rows and
columns) reads its depthwise convolution's result, cut over rows, columns
and channels: in the loops' own order the four tiles of a block of pixels
lay four grid rows apart, not beside the four that hold its channels, and
the pieces crossed the grid. An op that keeps its result on chip and reads
none kept on its rectangle heads such a chain: it takes the order after
which its readers, each laid out so in turn, read fewest bytes times hops
in all (MobileNetV2's expansion, output channels fastest: its depthwise
convolution then keeps the loops' order, each block's channel groups side
by side, and the projection lies beside them), where the saving is worth
it (as for the links, ``SAVING_DIVISOR``). Where no order does better than
the loops' own, or a read cannot be paired (through a reshape), or an
epilogue reads a kept result, or the result lies on another rectangle, an
op tied to a kept result keeps the loops' order: the hand-overs'
placements were lined up with each other's parts
(:mod:`tessel.mapper.handover`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import permutations, product
from typing import Any, Iterator

from ..runtime.timing import dram_channel_for, xy_route
from .cost import Placement, arch_key, sharers
from .graph import Graph, Op
from .on_chip import result_writer, tied_to_kept_results
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
    def cost(laid: Placement):
        loads = link_loads(op, laid, arch)
        return (max(loads.values(), default=0.0), sum(loads.values()))

    best, best_cost, own = _cheapest_order(placement, cost)
    return best, best_cost[0], own[0]


def _cheapest_order(placement: Placement, cost) -> tuple[tuple[int, ...], Any, Any]:
    """(order, its cost, the loops' own order's): of the orders of
    ``placement``'s split loops (its unsplit loops first), the one
    ``cost`` rates lowest for the placement laid out so, ``()`` where none
    rates lower than the loops' own; of equals, the first in
    ``itertools.permutations``' order."""
    split = [loop for loop, n in enumerate(placement.parts) if n > 1]
    unsplit = [loop for loop, n in enumerate(placement.parts) if n == 1]
    own = cost(replace(placement, order=()))
    best, best_cost = (), own
    for perm in permutations(split):
        if list(perm) == split:
            continue
        order = tuple(unsplit) + perm
        c = cost(replace(placement, order=order))
        if c < best_cost:
            best, best_cost = order, c
    return best, best_cost, own


def _dim_spans(access, shape, parts, loops) -> list | None:
    """Per dimension of an operand, the split loop that indexes it alone or
    beside other loops (a window's ``h + kh``) and the indices ``[lo, hi)``
    each of its parts reads or writes there, a window's halo included;
    ``(None, [(0, n)])`` where no one split loop does. None where a
    dimension is not affine or a loop steps backwards."""
    spans = []
    for a, n in zip(access, shape):
        if a.terms is None or any(c < 0 for _, c in a.terms):
            return None
        split = [l for l, c in a.terms if c > 0 and parts[l] > 1]
        if len(split) != 1:
            spans.append((None, [(0, n)]))
            continue
        (l,) = split
        terms = dict(a.terms)
        size = -(-loops[l] // parts[l])
        # The last index a part reaches along the other loops (a window's
        # taps), each over its whole extent.
        reach = sum(c * (-(-loops[k] // parts[k]) - 1)
                    for k, c in terms.items() if k != l and c > 0)
        spans.append((l, [(min(n, a.const + terms[l] * size * p),
                           min(n, a.const + terms[l] * (min(loops[l], size * (p + 1)) - 1)
                               + reach + 1))
                          for p in range(parts[l])]))
    return spans


def _kept_reads(op: Op, placement: Placement, source: int, writer: Op,
                writer_placement: Placement) -> list[tuple[int, int, int]] | None:
    """(reader part, writer part, bytes) for each part of ``op`` and each
    part of ``writer`` whose result (op ``source``'s: the writer's own or
    its epilogue's, on its slices) it reads. A padded operand (a
    convolution's window) is read at the result's indices shifted by its
    low border, taken as half the border (a symmetric pad). The overlaps
    are taken per dimension, between the parts along the loop that indexes
    it in each op, and multiplied. None where a read cannot be paired
    (through a reshape, not affine, a loop stepping backwards, or the
    writer split along a loop that indexes no one dimension of its result):
    the reader's distances are not known."""
    out = next(o for o in writer.operands if o.is_output)
    written = _dim_spans(out.access, out.shape, writer_placement.parts, writer.loops)
    writer_loops = [l for l, _ in written or () if l is not None]
    split = [l for l, n in enumerate(writer_placement.parts) if n > 1]
    # Each of the writer's parts at one place along every dimension.
    if written is None or sorted(writer_loops) != split:
        return None
    stride = [1] * len(writer_placement.parts)
    for l in reversed(range(len(stride) - 1)):
        stride[l] = stride[l + 1] * writer_placement.parts[l + 1]
    pairs = []
    for operand in op.operands:
        if operand.source != ("op", source) or operand.is_output:
            continue
        if len(operand.shape) != len(out.shape) or \
                (operand.shape != out.shape and not operand.padded):
            return None
        read = _dim_spans(operand.access, operand.shape, placement.parts, op.loops)
        if read is None:
            return None
        # Per dimension, per place of the reader's part along it: the
        # writer's parts along it it overlaps, and by how many indices.
        overlaps = []
        for (loop, spans), (writer_loop, writer_spans), p, n in zip(
                read, written, operand.shape, out.shape):
            shift = (p - n) // 2
            overlaps.append((loop, [
                [(stride[writer_loop] * c if writer_loop is not None else 0,
                  min(hi - shift, whi) - max(lo - shift, wlo))
                 for c, (wlo, whi) in enumerate(writer_spans)
                 if min(hi - shift, whi) > max(lo - shift, wlo)]
                for lo, hi in spans]))
        found: dict[tuple, list] = {}
        for i in range(placement.tiles):
            coords = part_coords(placement.parts, i)
            key = tuple(coords[loop] if loop is not None else 0 for loop, _ in overlaps)
            if key not in found:
                found[key] = []
                for combo in product(*(table[c] for (_, table), c in zip(overlaps, key))):
                    elements = operand.elem_bytes
                    for _, count in combo:
                        elements *= count
                    found[key].append((sum(k for k, _ in combo), elements))
            pairs.extend((i, k, byte_count) for k, byte_count in found[key])
    return pairs


def kept_read_hops(op: Op, placement: Placement, kept_writers) -> int | None:
    """Bytes times NoC hops ``op``'s parts under ``placement`` read of the
    results kept on chip, from the tiles that hold them (``kept_writers``:
    the index of each result read, the op keeping it on chip, its writer
    or the producer of the epilogue that writes it, and that op's
    placement); None where a read cannot be paired (:func:`_kept_reads`)."""
    reads = _reads_of_kept(op, placement, kept_writers)
    return None if reads is None else _hops(placement, reads)


def _reads_of_kept(op: Op, placement: Placement, kept_writers) -> list | None:
    """Per kept result, its holders' tiles and :func:`_kept_reads`' pairs
    (which do not depend on the order ``op``'s parts are laid out in); None
    where a read cannot be paired."""
    reads = []
    for source, writer, wp in kept_writers:
        pairs = _kept_reads(op, placement, source, writer, wp)
        if pairs is None:
            return None
        reads.append(([tile_of_part(wp, k) for k in range(wp.tiles)], pairs))
    return reads


def _hops(placement: Placement, reads) -> int:
    """Bytes times hops of ``reads`` (:func:`_reads_of_kept`) with the
    reading op's parts laid out as ``placement`` says."""
    tiles = [tile_of_part(placement, i) for i in range(placement.tiles)]
    hops = 0
    for holders, pairs in reads:
        for i, k, byte_count in pairs:
            (r, c), (hr, hc) = tiles[i], holders[k]
            hops += byte_count * (abs(r - hr) + abs(c - hc))
    return hops


def _order_by_kept_reads(op: Op, placement: Placement, kept_writers):
    """(order, its byte-hops, the loops' own order's): the order of the
    split loops whose reads of kept results travel fewest bytes times hops
    (:func:`kept_read_hops`), ``()`` where none beats the loops' own;
    None where a read cannot be paired."""
    reads = _reads_of_kept(op, placement, kept_writers)
    if reads is None:
        return None
    return _cheapest_order(placement, lambda laid: _hops(laid, reads))


def order_parts(graph: Graph, solution: Solution, arch) -> Solution:
    """``solution`` with each op of two or more split loops that reads a
    result kept on chip on its rectangle laid out nearer the tiles holding
    it, each that keeps its own for such readers laid out for them where
    that saves enough, and each other ``shared`` one, not tied to a kept
    result, laid out in :func:`best_order` where that saves enough (module
    docstring), with a note per op."""
    tied = tied_to_kept_results(graph, solution.on_chip)
    kept = {result_writer(graph.ops[i]).index: i for i in solution.on_chip}
    choices: list[Choice] = []
    placed_now: dict[int, Placement] = {}
    notes = []
    weighed: dict = {}
    for position, choice in enumerate(solution.choices):
        op = graph.ops[choice.op]
        p = choice.placement
        holders = _holders_read(graph, choice, kept, placed_now) \
            if choice.op in tied else []
        if op.folded or sum(n > 1 for n in p.parts) < 2 or \
                _epilogue_reads_kept(op, kept):
            # Nothing to order, or an epilogue that reads a kept result
            # where the op's parts lie: as placed.
            choices.append(choice)
        elif holders:
            choices.append(_laid_by_kept_reads(op, choice, holders, notes))
        elif choice.op in solution.on_chip:
            choices.append(_laid_for_its_readers(
                graph, solution.choices[position:], tied, kept, placed_now, arch,
                notes))
        elif choice.op in tied or not p.shared:
            # Reading a kept result on another rectangle: as placed.
            choices.append(choice)
        else:
            choices.append(_laid_by_links(op, choice, arch, weighed, notes))
        placed_now[choice.op] = choices[-1].placement
    if not notes:
        return solution
    return replace(solution, choices=tuple(choices),
                   notes=solution.notes + tuple(notes))


def _epilogue_reads_kept(op: Op, kept: dict, holders=None) -> bool:
    """Whether ``op``'s epilogue reads a result kept on chip (``kept``: the
    op keeping it by the index of the result read), by one of ``holders``
    where given."""
    return op.epilogue is not None and any(
        o.source[0] == "op" and o.source[1] in kept
        and (holders is None or kept[o.source[1]] in holders)
        for o in op.epilogue.operands)


def _holders_read(graph: Graph, choice: Choice, kept: dict,
                  placed_now: dict) -> list:
    """The results kept on chip that ``choice``'s op reads on the
    rectangle it runs on, as :func:`kept_read_hops` takes them."""
    op = graph.ops[choice.op]
    p = choice.placement
    holders = []
    for source in dict.fromkeys(o.source for o in op.operands):
        if source[0] != "op" or source[1] not in kept:
            continue
        held = placed_now.get(kept[source[1]])
        if held is not None and (held.row, held.col, held.rows,
                                 held.cols) == (p.row, p.col, p.rows, p.cols):
            holders.append((source[1], graph.ops[kept[source[1]]], held))
    return holders


def _laid_by_kept_reads(op: Op, choice: Choice, holders: list,
                        notes: list) -> Choice:
    """``choice`` laid out in :func:`_order_by_kept_reads`' order, with a
    note."""
    p = choice.placement
    order, hops, own = _order_by_kept_reads(op, p, holders) or ((), 0, 0)
    if not order:
        return choice
    notes.append(f"{op.label()}: parts laid out in loop order "
                 f"[{', '.join(map(str, order))}], the last fastest, beside the "
                 f"tiles holding what it reads on chip: {own:,} -> {hops:,} "
                 f"bytes x hops")
    return replace(choice, candidate=replace(
        choice.candidate, placement=replace(p, order=order)))


def _laid_for_its_readers(graph: Graph, rest, tied, kept: dict,
                          placed_now: dict, arch, notes: list) -> Choice:
    """``rest[0]``, an op that keeps its result on chip and reads none kept
    on its rectangle, laid out in the order of its split loops after which
    the ops reading its result on chip, each laid out in turn by
    :func:`_laid_by_kept_reads`' rule, read fewest bytes times hops in all
    (:func:`_chain_hops`), where that saves enough (below)."""
    head = rest[0]
    p = head.placement
    # Whether a chain's reads can be paired does not depend on the head's
    # order: where they cannot (None), every order rates alike, 0.
    best, best_hops, own = _cheapest_order(p, lambda laid: _chain_hops(
        graph, rest, tied, kept, placed_now, laid) or 0)
    # As for the links: where the bytes x hops saved, spread over the
    # rectangle's tiles, take less than a twentieth of the head's predicted
    # cycles at a link's rate, its own loads' layout weighs more (the small
    # CNN's second convolution on tessel-16x16, its pooling's reads 174,080
    # -> 133,120 bytes x hops on 64 tiles, ran 57 cycles slower so).
    saved = link_cycles(arch, (own - best_hops) / p.tiles)
    if not best or saved * SAVING_DIVISOR < head.cycles:
        return head
    notes.append(f"{graph.ops[head.op].label()}: parts laid out in loop order "
                 f"[{', '.join(map(str, best))}], the last fastest, so that the "
                 f"ops reading its result on chip read it nearer: {own:,} -> "
                 f"{best_hops:,} bytes x hops")
    return replace(head, candidate=replace(head.candidate,
                                           placement=replace(p, order=best)))


def _chain_hops(graph: Graph, rest, tied, kept: dict, placed_now: dict,
                head: Placement) -> int | None:
    """Bytes times hops that the ops of ``rest[1:]`` reading ``rest[0]``'s
    result on chip, directly or through one another's, read of those
    results, with ``rest[0]`` laid out as ``head`` and each of them as
    :func:`order_parts` lays a reader out; None where one's reads cannot
    be paired, or an epilogue reads one of the results. The ops outside the
    chain count as placed, in the loops' order or the order they were given
    (:func:`order_parts` may lay them out otherwise; no chain of the zoo
    reads one)."""
    placed = {**placed_now, rest[0].op: head}
    chain = {rest[0].op}
    total = 0
    for choice in rest[1:]:
        op, p = graph.ops[choice.op], choice.placement
        placed[choice.op] = p
        # An epilogue reading the chain's results runs where its producer's
        # parts lie, which its reads do not decide: not weighed.
        if _epilogue_reads_kept(op, kept, chain):
            return None
        holders = _holders_read(graph, choice, kept, placed) \
            if choice.op in tied and not op.folded else []
        if not any(kept[source] in chain for source, _, _ in holders):
            continue
        chain.add(choice.op)
        if sum(n > 1 for n in p.parts) < 2 or _epilogue_reads_kept(op, kept):
            hops = kept_read_hops(op, p, holders)
            if hops is None:
                return None
            total += hops
            continue
        laid = _order_by_kept_reads(op, p, holders)
        if laid is None:
            return None
        order, hops, own = laid
        placed[choice.op] = replace(p, order=order) if order else p
        total += hops if order else own
    return total


def _laid_by_links(op: Op, choice: Choice, arch, weighed: dict,
                   notes: list) -> Choice:
    """``choice`` laid out in :func:`best_order` where that saves enough
    (module docstring), with a note."""
    p = choice.placement
    order, busiest, own = best_order(op, p, arch, weighed)
    saved = link_cycles(arch, own - busiest)
    if not order or saved * SAVING_DIVISOR < choice.cycles:
        return choice
    notes.append(f"{op.label()}: parts laid out in loop order "
                 f"[{', '.join(map(str, order))}], the last fastest: the "
                 f"busiest link carries {own:,.0f} -> {busiest:,.0f} bytes "
                 f"of its shared loads ({saved:,.0f} cycles less at its "
                 f"rate; the op is predicted {choice.cycles:,})")
    return replace(choice, candidate=replace(
        choice.candidate, placement=replace(p, order=order)))
