"""The numerics of compute instructions: each one, bound to a tile's SRAM,
as a closure that executes it bit-exactly as docs/isa.md specifies
(``tessel.runtime.numerics``). The simulator runs them in its event
order; timing lives in ``timing.py``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import isa, numerics


def memory_view(mem: np.ndarray, view: isa.View, sizes, dtype: str) -> np.ndarray:
    st = numerics.STORAGE[dtype]
    return np.ndarray(tuple(sizes), st, buffer=mem, offset=view.base,
                      strides=tuple(s * st.itemsize for s in view.strides))


def compute_thunk(ins, mem: np.ndarray) -> Callable[[], None]:
    """A closure executing one compute instruction on the tile's SRAM."""
    f, op = ins.fields, ins.op
    if op in isa.MATMUL_OPS:
        dt, rows, k, n = f["dtype"], f["g"] * f["m"], f["k"], f["n"]
        lhs_sizes, lhs_view, acc_sizes, acc_view = isa.matmul_rows(f)
        lhs = memory_view(mem, lhs_view, lhs_sizes, dt)
        rhs = memory_view(mem, f["rhs"], (k, n), dt)
        acc = memory_view(mem, acc_view, acc_sizes, isa.acc_dtype(dt))
        # Groups of rows are rows of one product (each sum is its own row's:
        # the bits do not depend on the grouping). The reshapes copy where
        # the groups lie apart, so they run when the instruction does; every
        # read precedes the write.
        if op == "matmul_init":
            # The sums start at +0, as after a vector_fill of 0 (a read-only
            # broadcast: numerics.matmul copies its start).
            zero = np.broadcast_to(np.zeros((), acc.dtype), (rows, n))
            start = lambda: zero  # noqa: E731
        else:
            start = lambda: acc.reshape(rows, n)  # noqa: E731
        return lambda: np.copyto(acc, numerics.matmul(
            lhs.reshape(rows, k), rhs, start(), dt).reshape(acc_sizes))
    sizes = f["sizes"]
    if op == "vector_unary":
        src = memory_view(mem, f["in"], sizes, f["in_dtype"])
        out = memory_view(mem, f["out"], sizes, f["out_dtype"])
        uop, din, dout = f["op"], f["in_dtype"], f["out_dtype"]
        return lambda: np.copyto(out, numerics.unary(uop, src, din, dout))
    dt = f["dtype"]
    if op == "vector_reduce":
        src = memory_view(mem, f["in"], sizes, dt)
        osz = tuple(s for i, s in enumerate(sizes) if i != f["dim"])
        out = memory_view(mem, f["out"], osz, dt)
        rop, dim = f["op"], f["dim"]
        return lambda: np.copyto(out, numerics.reduce(rop, src, dim, dt))
    out = memory_view(mem, f["out"], sizes, dt)
    if op == "vector_fill":
        value = numerics.fill(f["value"], dt, ())
        return lambda: out.fill(value)
    if op == "vector_binary_imm":
        src = memory_view(mem, f["in"], sizes, dt)
        bop, imm, lhs_imm = f["op"], f["imm"], bool(f["imm_is_lhs"])
        return lambda: np.copyto(out, numerics.binary_imm(bop, src, imm, lhs_imm, dt))
    lhs = memory_view(mem, f["lhs"], sizes, dt)
    rhs = memory_view(mem, f["rhs"], sizes, dt)
    if op == "vector_binary":
        bop = f["op"]
        return lambda: np.copyto(out, numerics.binary(bop, lhs, rhs, dt))
    if op == "vector_compare":
        pred = f["predicate"]
        return lambda: np.copyto(out, numerics.compare(pred, lhs, rhs, dt))
    assert op == "vector_select"
    cond = memory_view(mem, f["cond"], sizes, dt)
    return lambda: np.copyto(out, numerics.select(cond, lhs, rhs, dt))
