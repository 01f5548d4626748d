"""The flat instruction table both emulator backends execute.

A program is decoded once (by :mod:`tessel.runtime.isa`) into one ``int64``
row per instruction, tiles' rows back to back, every operand at a fixed
column, so the CPU interpreter and the CUDA kernel read the same numbers. A
``dma_multicast`` is the exception: it becomes one ``dma`` row per
destination (the emulators copy at issue, and its destinations never overlap
its source, so the copies are the multicast), and the executors know only
``dma``. So are the MAC array's: a matmul becomes one ``matmul`` row of
``m`` rows per group of its ``g`` (each group's sums are its own rows'), and
a ``matmul_init`` a ``vector_fill`` of its accumulator with 0 before them
(the sums then start at +0, as the ISA defines).

- ``OP`` is the ISA opcode (``0x01`` dma .. ``0x26`` vector_select); ``SUB``
  the operation code (unary / binary / reduce op, predicate); ``DT_IN`` and
  ``DT_OUT`` the ISA dtype codes (``DT_IN`` alone where one type).
- ``SIZE0..SIZE3``: the index space, ranks below 4 padded with leading 1s.
  ``matmul`` has ``(m, k, n, 1)``; ``vector_reduce`` has the kept dimensions
  first and the reduced one last.
- ``VIEW0..VIEW3``: up to four views, each ``base`` (a byte address in the
  *arena*, below) and four strides in elements (0 in padded dimensions).
  The roles: matmul ``lhs, rhs, acc``; dma ``src`` and ``dst`` in views 0 and
  3; vector ops their inputs from view 0 on and the output in view 3;
  dma_gather ``table``, ``index`` and ``dst`` in views 0, 1 and 3, its
  ``index_dtype`` in ``DT_OUT``, ``index_stride`` in ``IMM``, ``rows`` in
  ``COUNT`` and ``wrap`` in ``FLAG``.
- ``IMM``: the f32 bits of ``imm`` / ``value``; ``FLAG``: ``imm_is_lhs``, or
  for ``matmul`` 1 when ``lhs`` or ``rhs`` is exactly ``acc`` (the result
  must then be computed before anything is written).
- ``SEM`` / ``COUNT``: the semaphore (an index into the program's flat
  semaphore array) of ``signal`` and ``wait_semaphore``.

The *arena* is one byte array holding every memory: DRAM first, then the SRAM
of each tile that runs code or is a DMA endpoint, each region aligned to
:data:`ALIGN` bytes. Views address it directly, so an executor needs no
memory map.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import isa
from ..isa import Endpoint, Instruction, View
from ..program import Program

# Columns of a row.
OP, SUB, DT_IN, DT_OUT = 0, 1, 2, 3
SIZE0 = 4                      # SIZE0 .. SIZE0 + 3
IMM, FLAG, SEM, COUNT = 8, 9, 10, 11
VIEW0 = 12                     # view v: base at VIEW0 + 5 v, strides after it
VIEW_WIDTH = 5
WIDTH = VIEW0 + 4 * VIEW_WIDTH
RANK = 4
# Arena regions start at multiples of this (any element is aligned).
ALIGN = 256

OPCODES = isa.OPCODES
DTYPE_CODE = isa.DTYPE_CODE


@dataclass(frozen=True)
class Table:
    """A decoded program. ``rows[first[t]:first[t + 1]]`` are the rows of
    the instructions of tile ``tiles[t]``; ``sem_first[t] + i`` is the index of
    its semaphore ``i`` in the flat semaphore array, whose initial counts are
    ``sem_init``. ``arena_bytes`` is the size of the arena, whose first
    ``dram_bytes`` bytes are DRAM; ``sram_base`` maps a tile to the arena
    address of its SRAM. ``where[i]`` is the instruction of row ``i`` and
    ``index[i]`` its position in its tile's stream, for messages (a multicast
    has several rows); ``instructions`` counts the program's instructions."""

    rows: np.ndarray
    first: np.ndarray
    tiles: tuple[tuple[int, int], ...]
    sem_first: np.ndarray
    sem_init: np.ndarray
    arena_bytes: int
    dram_bytes: int
    sram_base: dict
    where: tuple[Instruction, ...]
    index: tuple[int, ...]
    instructions: int
    # The largest m * n of a matmul whose result is buffered (FLAG set).
    max_buffered_acc: int
    # Per tag id, the source op for messages (Program.source_of).
    sources: dict

    @property
    def num_tiles(self) -> int:
        return len(self.tiles)

    def tile_of_row(self, i: int) -> int:
        return int(np.searchsorted(self.first, i, side="right") - 1)


def f32_bits(value: float) -> int:
    """The IEEE bits of an f32 operand (decoded operands are exact f32
    values, so this is the word of the stream)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


def _pad(sizes: Sequence[int], strides: Sequence[int]) -> tuple[list[int], list[int]]:
    lead = RANK - len(sizes)
    return [1] * lead + list(sizes), [0] * lead + list(strides)


class _Builder:
    def __init__(self, program: Program):
        self.p = program
        decoded = program.decoded()
        self.tiles = tuple((t.row, t.col) for t in program.tiles)
        # DRAM is padded as the simulator pads it, so a view near its end
        # reads the same bytes.
        self.dram_bytes = _round_up(max(program.dram_bytes, 1), 8)
        srams = set(self.tiles)
        for instrs in decoded.values():
            for ins in instrs:
                if ins.op == "dma":
                    eps = (ins["src"], ins["dst"])
                elif ins.op == "dma_multicast":
                    eps = (ins["src"],) + ins["dsts"]
                else:
                    continue
                for ep in eps:
                    if ep.kind == "sram":
                        srams.add((ep.row, ep.col))
        sram_bytes = program.arch.tile.sram.bytes
        offset = _round_up(self.dram_bytes, ALIGN)
        self.sram_base = {}
        for rc in sorted(srams):
            self.sram_base[rc] = offset
            offset += _round_up(sram_bytes, ALIGN)
        self.arena_bytes = offset
        sem_first, sem_init = [0], []
        for t in program.tiles:
            sem_init.extend(t.semaphores)
            sem_first.append(len(sem_init))
        self.sem_first = sem_first
        self.sem_index = {rc: i for i, rc in enumerate(self.tiles)}
        self.sem_init = sem_init
        self.max_buffered_acc = 0
        rows, first, where, index = [], [0], [], []
        for rc in self.tiles:
            for k, ins in enumerate(decoded[rc]):
                if ins.op == "dma_multicast":
                    f = ins.fields
                    for dst in f["dsts"]:
                        rows.append(self.dma_row(f["dtype"], f["sizes"], f["src"], dst))
                        where.append(ins)
                        index.append(k)
                else:
                    expanded = (self.matmul_table_rows(rc, ins) if ins.op in isa.MATMUL_OPS
                                else [self.row(rc, ins)])
                    rows.extend(expanded)
                    where.extend([ins] * len(expanded))
                    index.extend([k] * len(expanded))
            first.append(len(rows))
        self.rows = np.array(rows, np.int64).reshape(len(rows), WIDTH)
        self.first = np.array(first, np.int64)
        self.where = tuple(where)
        self.index = tuple(index)
        self.instructions = sum(len(decoded[rc]) for rc in self.tiles)

    def view(self, row: np.ndarray, slot: int, base: int, sizes, strides) -> None:
        col = VIEW0 + VIEW_WIDTH * slot
        row[col] = base
        row[col + 1:col + 1 + RANK] = strides

    def sram_view(self, row, slot, rc, view: View, sizes) -> None:
        _, strides = _pad(sizes, view.strides)
        self.view(row, slot, self.sram_base[rc] + view.base, sizes, strides)

    def dma_row(self, dtype: str, sizes, src: Endpoint, dst: Endpoint) -> np.ndarray:
        """The row of a dma copying ``src`` to ``dst``."""
        row = np.zeros(WIDTH, np.int64)
        row[OP] = OPCODES["dma"]
        padded, _ = _pad(sizes, ())
        row[DT_IN] = DTYPE_CODE[dtype]
        row[SIZE0:SIZE0 + RANK] = padded
        for slot, ep in ((0, src), (3, dst)):
            base = (ep.view.base if ep.kind == "dram"
                    else self.sram_base[(ep.row, ep.col)] + ep.view.base)
            self.view(row, slot, base, padded, _pad(sizes, ep.view.strides)[1])
        return row

    def matmul_table_rows(self, rc, ins: Instruction) -> list[np.ndarray]:
        """A matmul's rows: a ``matmul_init``'s ``vector_fill`` of 0 first,
        then a ``matmul`` row per group of rows (a group's sums are its own
        rows', so the groups may run one after another)."""
        f = ins.fields
        g, m, k, n = f["g"], f["m"], f["k"], f["n"]
        dtype, acc_dtype = f["dtype"], isa.acc_dtype(f["dtype"])
        rows = []
        if ins.op == "matmul_init":
            _, _, acc_sizes, acc_view = isa.matmul_rows(f)
            rows.append(self.row(rc, Instruction("vector_fill", {
                "dtype": acc_dtype, "value": 0.0, "sizes": acc_sizes,
                "out": acc_view})))
        rhs = f["rhs"]
        for group in range(g):
            lhs, acc = (View(v.base + group * v.strides[0] * isa.DTYPE_SIZE[dt],
                             v.strides[1:])
                        for v, dt in ((f["lhs"], dtype), (f["acc"], acc_dtype)))
            row = np.zeros(WIDTH, np.int64)
            row[OP] = OPCODES["matmul"]
            row[DT_IN] = DTYPE_CODE[dtype]
            row[DT_OUT] = DTYPE_CODE[acc_dtype]
            row[SIZE0:SIZE0 + RANK] = (m, k, n, 1)
            for slot, v in enumerate((lhs, rhs, acc)):
                self.view(row, slot, self.sram_base[rc] + v.base, (),
                          list(v.strides) + [0, 0])
            # An exact alias of an input and acc (the only overlap the ISA
            # allows) needs every read done before the first write.
            if (lhs == acc and k == n) or (rhs == acc and k == m):
                row[FLAG] = 1
                self.max_buffered_acc = max(self.max_buffered_acc, m * n)
            rows.append(row)
        return rows

    def row(self, rc, ins: Instruction) -> np.ndarray:
        f, op = ins.fields, ins.op
        if op == "dma":
            return self.dma_row(f["dtype"], f["sizes"], f["src"], f["dst"])
        row = np.zeros(WIDTH, np.int64)
        row[OP] = OPCODES[op]
        if op == "wait":
            pass                    # transfers complete at issue (docs/gpu-emulation.md)
        elif op == "signal":
            target = self.sem_index[(f["row"], f["col"])]
            row[SEM] = self.sem_first[target] + f["semaphore"]
            row[COUNT] = f["count"]
        elif op in ("wait_semaphore", "dma_wait_semaphore"):
            # The core takes a DMA channel's wait itself: every program
            # runs so too (docs/isa.md), and transfers complete at issue.
            row[OP] = OPCODES["wait_semaphore"]
            row[SEM] = self.sem_first[self.sem_index[rc]] + f["semaphore"]
            row[COUNT] = f["count"]
        elif op == "dma_gather":
            sizes = f["sizes"]
            padded, _ = _pad(sizes, ())
            row[DT_IN] = DTYPE_CODE[f["dtype"]]
            row[DT_OUT] = DTYPE_CODE[f["index_dtype"]]
            row[SIZE0:SIZE0 + RANK] = padded
            row[IMM] = f["index_stride"]
            row[COUNT] = f["rows"]
            row[FLAG] = f["wrap"]
            table = f["table"]
            self.view(row, 0, table.base, padded, _pad(sizes, table.strides)[1])
            self.sram_view(row, 1, rc, f["index"], sizes)
            self.sram_view(row, 3, rc, f["dst"], sizes)
        else:
            self.vector_row(row, rc, ins)
        return row

    def vector_row(self, row, rc, ins: Instruction) -> None:
        f, op = ins.fields, ins.op
        sizes = f["sizes"]
        if op == "vector_unary":
            row[SUB] = isa.UNARY_OPS.index(f["op"])
            row[DT_IN] = DTYPE_CODE[f["in_dtype"]]
            row[DT_OUT] = DTYPE_CODE[f["out_dtype"]]
        else:
            row[DT_IN] = row[DT_OUT] = DTYPE_CODE[f["dtype"]]
        if op in ("vector_binary", "vector_binary_imm"):
            row[SUB] = isa.BINARY_OPS.index(f["op"])
        if op == "vector_binary_imm":
            row[IMM] = f32_bits(f["imm"])
            row[FLAG] = f["imm_is_lhs"]
        if op == "vector_fill":
            row[IMM] = f32_bits(f["value"])
        if op == "vector_compare":
            row[SUB] = isa.PREDICATES.index(f["predicate"])
        if op == "vector_reduce":
            row[SUB] = isa.REDUCE_OPS.index(f["op"])
            dim = f["dim"]
            kept = [i for i in range(len(sizes)) if i != dim]
            order = kept + [dim]
            in_sizes, in_strides = _pad([sizes[i] for i in order],
                                        [f["in"].strides[i] for i in order])
            row[SIZE0:SIZE0 + RANK] = in_sizes
            self.view(row, 0, self.sram_base[rc] + f["in"].base, in_sizes, in_strides)
            out_strides = _pad([sizes[i] for i in kept], f["out"].strides)[1][1:] + [0]
            self.view(row, 3, self.sram_base[rc] + f["out"].base, in_sizes, out_strides)
            return
        padded, _ = _pad(sizes, ())
        row[SIZE0:SIZE0 + RANK] = padded
        inputs = list(isa.READS[op])
        for slot, name in enumerate(inputs):
            self.sram_view(row, slot, rc, f[name], sizes)
        self.sram_view(row, 3, rc, f[isa.WRITES[op]], sizes)


def build_table(program: Program) -> Table:
    """The table of ``program`` (validated on the way, as ``decoded`` does).
    Kept with the program: a program is not modified after it is built or
    loaded."""
    table = getattr(program, "_emulator_table", None)
    if table is None:
        b = _Builder(program)
        table = Table(rows=b.rows, first=b.first, tiles=b.tiles,
                      sem_first=np.array(b.sem_first, np.int64),
                      sem_init=np.array(b.sem_init, np.int64),
                      arena_bytes=b.arena_bytes, dram_bytes=b.dram_bytes,
                      sram_base=dict(b.sram_base), where=b.where, index=b.index,
                      instructions=b.instructions,
                      max_buffered_acc=b.max_buffered_acc,
                      sources={t.id: program.source_of(t.id) for t in program.tags})
        program._emulator_table = table
    return table
