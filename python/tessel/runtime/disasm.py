"""Readable text of a program: one line per instruction, with its tile, byte
offset in the stream, tag name and decoded operands::

    r0c0 +0x0010 [fc1] dma ch0 tok0 f32 [16x16] dram@0x100(16,1) -> sram(0,0)@0x0(16,1)
    r0c0 +0x0054 [fc1] matmul f32 m16 k16 n16 lhs@0x0(16,1) rhs@0x400(16,1) acc@0x800(16,1)
    r0c0 +0x0098 dma_multicast ch0 tok1 f32 [16x16] dram@0x100(16,1) -> sram(0,1)@0x0(16,1), sram(0,2)@0x0

A multicast's destinations share their strides (docs/isa.md): they are
printed with the first destination only.
"""

from __future__ import annotations

from typing import Callable

from . import isa
from .isa import Endpoint, Instruction, View


def format_view(view: View) -> str:
    return f"@0x{view.base:x}({','.join(map(str, view.strides))})"


def format_endpoint(ep: Endpoint) -> str:
    where = "dram" if ep.kind == "dram" else f"sram({ep.row},{ep.col})"
    return where + format_view(ep.view)


def _sizes(sizes) -> str:
    return "[" + "x".join(map(str, sizes)) + "]"


def format_instruction(ins: Instruction) -> str:
    """The operands of one instruction, without tile, offset or tag."""
    f, op = ins.fields, ins.op
    if op == "dma":
        return (f"dma ch{f['channel']} tok{f['token']} {f['dtype']} "
                f"{_sizes(f['sizes'])} {format_endpoint(f['src'])} -> "
                f"{format_endpoint(f['dst'])}")
    if op == "dma_multicast":
        d = f["dsts"]
        dsts = ", ".join([format_endpoint(d[0])] + [
            f"sram({e.row},{e.col})@0x{e.view.base:x}" for e in d[1:]]
        ) if d else "(none)"
        return (f"dma_multicast ch{f['channel']} tok{f['token']} {f['dtype']} "
                f"{_sizes(f['sizes'])} {format_endpoint(f['src'])} -> {dsts}")
    if op == "dma_gather":
        return (f"dma_gather ch{f['channel']} tok{f['token']} {f['dtype']} "
                f"{_sizes(f['sizes'])} dram{format_view(f['table'])} + "
                f"{f['index_stride']} * {f['index_dtype']}{format_view(f['index'])} "
                f"< {f['rows']}{' wrap' if f['wrap'] else ''} -> "
                f"{format_view(f['dst'])}")
    if op == "wait":
        return "wait " + (" ".join(f"tok{t}" for t in f["tokens"]) or "(none)")
    if op == "signal":
        return (f"signal ({f['row']},{f['col']}) sem{f['semaphore']} "
                f"+{f['count']}")
    if op == "wait_semaphore":
        return f"wait_semaphore sem{f['semaphore']} {f['count']}"
    if op == "dma_wait_semaphore":
        return f"dma_wait_semaphore ch{f['channel']} sem{f['semaphore']} {f['count']}"
    if op in isa.MATMUL_OPS:
        # One group: its rows' views, as 2-D.
        _, lhs, _, acc = isa.matmul_rows(f)
        rows = f"m{f['g']}x{f['m']}" if f["g"] > 1 else f"m{f['m']}"
        return (f"{op} {f['dtype']} {rows} k{f['k']} n{f['n']} "
                f"lhs{format_view(lhs)} rhs{format_view(f['rhs'])} "
                f"acc{format_view(acc)}")
    parts = [op]
    if op == "vector_unary":
        parts += [f["op"], f"{f['in_dtype']}->{f['out_dtype']}"]
    elif op == "vector_compare":
        parts += [f["predicate"], f["dtype"]]
    elif op in ("vector_binary", "vector_binary_imm", "vector_reduce"):
        parts += [f["op"], f["dtype"]]
    else:
        parts.append(f["dtype"])
    if op == "vector_binary_imm":
        parts.append(f"imm={f['imm']!r}" + (" (lhs)" if f["imm_is_lhs"] else ""))
    if op == "vector_fill":
        parts.append(f"value={f['value']!r}")
    parts.append(_sizes(f["sizes"]))
    if op == "vector_reduce":
        parts.append(f"dim{f['dim']}")
    for name in isa.READS[op] + (isa.WRITES[op],):
        parts.append(f"{name}{format_view(f[name])}")
    return " ".join(parts)


def disassemble_tile(instructions: list[Instruction], row: int, col: int,
                     tag_name: Callable[[int | None], str | None] = lambda t: None
                     ) -> list[str]:
    lines = []
    for ins in instructions:
        name = tag_name(ins.tag)
        tag = f"[{name}] " if name is not None else (
            f"[#{ins.tag}] " if ins.tag is not None else "")
        lines.append(f"r{row}c{col} +0x{ins.offset:04x} {tag}{format_instruction(ins)}")
    return lines


def disassemble(program) -> str:
    """The whole program: a header (arch, DRAM buffers, tags), then each
    tile's instructions."""
    out = [f"; program for {program.arch.name}, {program.dram_bytes} bytes of DRAM"]
    for b in program.buffers:
        out.append(f"; dram 0x{b.offset:x} {b.kind} {b.name} {b.dtype}"
                   f"{_sizes(b.shape)} ({b.nbytes} bytes)")
    for t in program.tags:
        out.append(f"; tag {t.id} {t.name}" + (f" {t.op}" if t.op else "")
                   + (f" at {t.loc}" if t.loc else ""))
    for t in program.tiles:
        out.append(f"; tile ({t.row},{t.col}): semaphores {list(t.semaphores)}, "
                   f"{t.tokens} token slots")
        out += disassemble_tile(program.instructions(t.row, t.col), t.row, t.col,
                                program.tag_name)
    return "\n".join(out) + "\n"
