"""Readable reports of a mapping: per op its region, split, step sizes and
predicted cycles; where each tensor between ops goes (SRAM or DRAM, and
why); and, when weights cannot all stay on chip, which ops need how many
bytes against the SRAM there is."""

from __future__ import annotations

from dataclasses import replace

from .graph import Graph, epilogue_obstacle, readers_of
from .space import (EPILOGUE_DIVISOR, MapperOptions, Solution, epilogue_estimates,
                    epilogue_pays)


def _loops(op, values) -> str:
    return "x".join(str(v) for v in values)


def table(graph: Graph, solution: Solution, arch) -> str:
    """One line per op: region, parts per loop (``p`` parallel, ``r``
    reduction), per-tile step sizes, steps, predicted cycles (compute /
    transfer), SRAM per tile; then the totals and the solver's figures."""
    rows = [("op", "loops", "stage", "region", "parts", "steps", "n", "cycles",
             "compute", "transfer", "SRAM/tile", "tag")]
    for c in sorted(solution.choices, key=lambda c: c.op):
        op, p, e = graph.ops[c.op], c.placement, c.candidate.estimate
        kinds = "".join("p" if t == "parallel" else "r" for t in op.iterators)
        rows.append((
            op.label(), f"{_loops(op, op.loops)} {kinds}", str(c.stage),
            f"({p.row},{p.col}) {p.rows}x{p.cols}"
            + (" W" if e.resident_bytes else "") + (" S" if p.shared else "")
            + (" O" if c.op in solution.on_chip else "")
            + (" F" if op.folded else ""),
            _loops(op, p.parts), _loops(op, e.steps), str(e.num_steps),
            str(e.cycles), str(e.compute), str(e.transfer),
            f"{e.sram_bytes / 1024:.1f} KiB", op.tag.rsplit("/", 1)[-1]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
             for r in rows]
    lines.append(f"predicted latency {solution.latency} cycles"
                 + (f", interval {solution.interval} cycles over "
                    f"{len(solution.stage_cycles())} stages"
                    if len(solution.stage_cycles()) > 1 else ""))
    # The objective counts the results handed over (less their margin,
    # tessel.mapper.handover), not those kept after the placements were
    # chosen; the latency above counts every result kept.
    handed = ", ".join(f"#{i}" for i in sorted(solution.handed_over))
    lines.append(f"{solution.method}: {solution.status}, objective "
                 f"{solution.objective}"
                 + (f" (the results of {handed} handed over on chip, the "
                    "others through DRAM)" if handed else
                    " (every result through DRAM)" if solution.on_chip else "")
                 + f", bound {solution.bound}, gap "
                 f"{100 * solution.gap:.2f}%, {solution.solve_seconds:.2f} s "
                 f"on {arch.name}")
    lines.extend(solution.notes)
    lines.append("W: weights resident in SRAM; S: slices several tiles read "
                 "loaded once and multicast; O: result kept on chip, in the "
                 "SRAM of the tiles that computed it; F: folded into a neighbour, a "
                 "fill into the accumulator it initializes or an elementwise "
                 "op into the op before it, on whose slices it runs (no code "
                 "of its own); parts/steps per loop in iteration-domain "
                 "order")
    return "\n".join(lines)


def weight_report(graph: Graph, arch) -> list[str]:
    """Lines saying whether the model's weights fit the chip's SRAM and,
    when not, which ops need how many bytes: those ops stream their
    weights from DRAM (the mapping does not fail)."""
    total_sram = arch.tile.sram.bytes * arch.num_tiles
    need = sum(op.weight_bytes for op in graph.ops)
    if need == 0:
        return []
    if need <= total_sram:
        return [f"weights: {need} bytes fit the chip's {total_sram} bytes of "
                "SRAM"]
    lines = [f"weights: {need} bytes do not fit the chip's {total_sram} bytes "
             f"of SRAM ({arch.num_tiles} tiles x {arch.tile.sram.bytes}); "
             "they stream from DRAM:"]
    for op in sorted(graph.ops, key=lambda o: -o.weight_bytes):
        if op.weight_bytes:
            lines.append(f"  {op.label()}: {op.weight_bytes} bytes of weights "
                         f"({op.tag.rsplit('/', 1)[-1]})")
    return lines


def tensor_report(graph: Graph, arch, options: MapperOptions,
                  solution: Solution | None = None) -> list[str]:
    """Where each op's result that other ops read goes between them: kept
    in SRAM, where its reader runs on its slices as an epilogue or where it
    stays on the tiles that computed it (``solution.on_chip``), or stored
    to DRAM and read back, with the reason: what keeps its reader from
    running as an epilogue, or the prediction that running it so is slower
    (with the SRAM the producer's steps would then hold). With the
    ``solution``, a result stored to DRAM also says how much of it each of
    its producer's tiles holds against the SRAM its steps leave: whether it
    could stay where it was computed."""
    ops = graph.ops
    readers = readers_of(ops)
    chosen = {c.op: c for c in solution.choices} if solution else {}
    # An epilogue's result is written by its producer's tiles.
    for op in ops:
        if op.epilogue is not None and op.index in chosen:
            chosen[op.epilogue.index] = chosen[op.index]
    # The results kept on chip, as their readers read them (an epilogue's).
    on_chip = {(op.epilogue or op).index: op for op in ops
               if solution and op.index in solution.on_chip}
    lines, kept, stored = [], 0, 0
    for op in ops:
        outs = [o for o in op.operands if o.is_output]
        # A fill or a bias folded into an accumulator is no tensor.
        if op.index not in readers or len(outs) != 1 \
                or (op.folded and op.name != "linalg.generic"):
            continue
        size = f"{op.label()} {_loops(op, outs[0].shape)} ({outs[0].nbytes} bytes)"
        if op.epilogue is not None:
            kept += outs[0].nbytes
            lines.append(f"  {size}: SRAM, {op.epilogue.label()} runs on its "
                         "slices")
            continue
        if op.index in on_chip:
            kept += outs[0].nbytes
            lines.append(f"  {size}: SRAM, kept on the tiles of "
                         f"{on_chip[op.index].label()} until "
                         f"{ops[max(readers[op.index])].label()} reads it")
            continue
        stored += outs[0].nbytes
        reason = epilogue_obstacle(ops, readers, op)
        if reason is None:
            reason = _unfused_reason(op, ops[readers[op.index][0]], arch, options)
        lines.append(f"  {size}: DRAM, {reason}"
                     + _room(chosen.get(op.index), outs[0].nbytes, arch))
    if not lines:
        return []
    return [f"tensors between ops: {kept} bytes stay in SRAM, {stored} bytes "
            "go to DRAM and back:"] + lines


def _unfused_reason(op, reader, arch, options: MapperOptions) -> str:
    """Why ``reader``, which could run on ``op``'s slices, does not: the
    prediction space.choose_epilogues left it apart on. Where fusing is
    predicted faster, it was not weighed: ``op`` was, as the epilogue of
    the op before it (fold_epilogues pairs each op once, in order)."""
    # As choose_epilogues costed it (the reader folded), so the candidates
    # come from its cache.
    best = epilogue_estimates(replace(op, epilogue=replace(reader, folded=True)),
                              arch, options)
    if best is None:
        return f"{reader.label()} as its epilogue has no placement"
    if epilogue_pays(*best):
        return (f"{reader.label()} as its epilogue not weighed ({op.label()} "
                "was weighed as the epilogue of the op before it)")
    fused, alone, rest = (c.estimate for c in best)
    if fused.cycles < alone.cycles + rest.cycles:
        return (f"{reader.label()} as its epilogue predicted faster by less "
                f"than 1/{EPILOGUE_DIVISOR} ({fused.cycles} cycles against "
                f"{alone.cycles} + {rest.cycles} apart)")
    return (f"{reader.label()} as its epilogue predicted slower ({fused.cycles} "
            f"cycles, its steps holding {fused.sram_bytes / 1024:.1f} of "
            f"{arch.tile.sram.bytes / 1024:.0f} KiB per tile, against "
            f"{alone.cycles} + {rest.cycles} apart)")


def _room(choice, nbytes: int, arch) -> str:
    """What a result stored to DRAM would take of its producer's tiles' SRAM
    (``choice``, the producer's), against what the producer's steps leave."""
    if choice is None:
        return ""
    p, e = choice.placement, choice.candidate.estimate
    left = max(0, arch.tile.sram.bytes - e.sram_bytes)  # resident included
    return (f"; {_size(nbytes / p.tiles)} of it a tile of its "
            f"{p.rows}x{p.cols}, {_size(left)} of SRAM left beside its steps")


def _size(nbytes: float) -> str:
    return f"{nbytes / 1024:.1f} KiB" if nbytes >= 1024 else f"{nbytes:.0f} bytes"
