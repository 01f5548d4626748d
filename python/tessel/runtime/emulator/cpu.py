"""The CPU backend: a NumPy interpreter of the instruction table.

It reads only the table (never the decoded instructions), so it checks the
table the CUDA kernel executes: views, padding, semaphore indices, the
arena layout. The arithmetic is :mod:`tessel.runtime.numerics`, the ISA's
reference. Tiles run cooperatively (:func:`.schedule.run_tiles`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import isa, numerics
from .errors import index_error
from .schedule import run_tiles
from .table import (COUNT, DT_IN, DT_OUT, FLAG, IMM, OP, OPCODES, RANK, SIZE0,
                    SUB, VIEW0, VIEW_WIDTH, Table)

_DTYPES = isa.DTYPES
_OP_NAME = {code: name for name, code in OPCODES.items()}


def _view(arena: np.ndarray, row: np.ndarray, slot: int, sizes, storage: np.dtype,
          ndim: int = RANK) -> np.ndarray:
    col = VIEW0 + VIEW_WIDTH * slot
    strides = row[col + 1:col + 1 + ndim].tolist()
    return np.ndarray(tuple(sizes), storage, buffer=arena, offset=int(row[col]),
                      strides=tuple(s * storage.itemsize for s in strides))


def _thunk(arena: np.ndarray, row: np.ndarray) -> Callable[[], None]:
    """A closure executing one dma or compute row on ``arena``."""
    op = _OP_NAME[int(row[OP])]
    sizes = tuple(row[SIZE0:SIZE0 + RANK].tolist())
    din, dout = _DTYPES[row[DT_IN]], _DTYPES[row[DT_OUT]]
    if op == "dma":
        # DMA moves bits: copy through unsigned integers of the element size.
        bits = numerics.BITS[isa.DTYPE_SIZE[din]]
        src, dst = _view(arena, row, 0, sizes, bits), _view(arena, row, 3, sizes, bits)
        return lambda: np.copyto(dst, src)
    if op == "dma_gather":
        item = isa.DTYPE_SIZE[din]
        dst = _view(arena, row, 3, sizes, numerics.BITS[item])
        index = _view(arena, row, 1, sizes, numerics.STORAGE[dout])
        table = int(row[VIEW0])
        strides = row[VIEW0 + 1:VIEW0 + 1 + RANK].tolist()
        index_stride, rows, wrap = int(row[IMM]), int(row[COUNT]), bool(row[FLAG])
        return lambda: np.copyto(dst, numerics.gather(
            arena, item, table, strides, index_stride, rows, wrap, index))
    if op == "matmul":
        m, k, n, _ = sizes
        st = numerics.STORAGE[din]
        lhs = _view(arena, row, 0, (m, k), st, 2)
        rhs = _view(arena, row, 1, (k, n), st, 2)
        acc = _view(arena, row, 2, (m, n), numerics.STORAGE[dout], 2)
        # numerics.matmul returns a new array: every read precedes the write,
        # as an exact alias of lhs or rhs with acc needs.
        return lambda: np.copyto(acc, numerics.matmul(lhs, rhs, acc, din))
    st_in, st_out = numerics.STORAGE[din], numerics.STORAGE[dout]
    if op == "vector_reduce":
        rop = isa.REDUCE_OPS[row[SUB]]
        src = _view(arena, row, 0, sizes, st_in)
        out = _view(arena, row, 3, sizes[:3], st_out, 3)
        return lambda: np.copyto(out, numerics.reduce(rop, src, 3, din))
    out = _view(arena, row, 3, sizes, st_out)
    imm = np.uint32(row[IMM]).view(np.float32).item()
    if op == "vector_fill":
        value = numerics.fill(imm, dout, ())
        return lambda: out.fill(value)
    a = _view(arena, row, 0, sizes, st_in)
    if op == "vector_unary":
        uop = isa.UNARY_OPS[row[SUB]]
        return lambda: np.copyto(out, numerics.unary(uop, a, din, dout))
    if op == "vector_binary_imm":
        bop, lhs_imm = isa.BINARY_OPS[row[SUB]], bool(row[FLAG])
        return lambda: np.copyto(out, numerics.binary_imm(bop, a, imm, lhs_imm, din))
    b = _view(arena, row, 1, sizes, st_in)
    if op == "vector_binary":
        bop = isa.BINARY_OPS[row[SUB]]
        return lambda: np.copyto(out, numerics.binary(bop, a, b, din))
    if op == "vector_compare":
        pred = isa.PREDICATES[row[SUB]]
        return lambda: np.copyto(out, numerics.compare(pred, a, b, din))
    assert op == "vector_select", op
    c = _view(arena, row, 2, sizes, st_in)
    return lambda: np.copyto(out, numerics.select(a, b, c, din))


def run(table: Table, arena: np.ndarray) -> None:
    """Execute the program on ``arena`` (its initial memories, changed in
    place)."""
    rows = table.rows
    thunks: dict[int, Callable[[], None]] = {}

    def execute(i: int) -> None:
        fn = thunks.get(i)
        if fn is None:
            fn = thunks[i] = _thunk(arena, rows[i])
        try:
            fn()
        except numerics.IndexOutOfRange as e:
            raise index_error(table, i, e) from None

    run_tiles(table, execute)
