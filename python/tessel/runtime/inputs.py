"""A program's inputs checked before it runs: every input buffer given, no
other buffer named, each array of the buffer's shape and of a dtype it
takes. The simulator and the emulators check the same way.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import numerics
from .program import Program
from .results import SimulationError


def input_dtypes(dtype: str) -> tuple[np.dtype, ...]:
    """The NumPy dtypes an input array of a buffer of ``dtype`` may have: its
    storage type, and for bf16 also float32 (rounded to nearest even)."""
    st = numerics.STORAGE[dtype]
    return (st, np.dtype(np.float32)) if dtype == "bf16" else (st,)


def check_inputs(program: Program, inputs: Mapping[str, Any], *,
                 required: bool = True) -> dict[str, np.ndarray]:
    """Check ``inputs`` against the program's input buffers and return them in
    storage form. Every key must be one of ``program.inputs`` (a weight,
    output or scratch buffer is refused: its content is the program's); with
    ``required`` every input must be given. Each array must have the buffer's
    shape and one of :func:`input_dtypes`. Raises :class:`SimulationError`
    naming the input, what the program expects and what it got."""
    listed = ", ".join(program.inputs) or "none"
    out: dict[str, np.ndarray] = {}
    for name, value in inputs.items():
        if name not in program.inputs:
            try:
                kind = program.buffer(name).kind
                article = "an" if kind[:1] in "aeiou" else "a"
                what = f"{name!r} is {article} {kind} buffer, not an input"
            except (KeyError, TypeError):
                what = f"{name!r} is not an input"
            raise SimulationError(f"{what} of the program (its inputs: {listed})")
        buf = program.buffer(name)
        arr = np.asarray(value)
        if tuple(arr.shape) != buf.shape:
            raise SimulationError(f"input {name!r} has shape {list(arr.shape)}, "
                                  f"the program expects {list(buf.shape)}")
        accepted = input_dtypes(buf.dtype)
        if arr.dtype not in accepted:
            raise SimulationError(
                f"input {name!r} has dtype {arr.dtype}, the program expects "
                f"{buf.dtype} (pass {' or '.join(str(d) for d in accepted)})")
        out[name] = numerics.to_storage(arr, buf.dtype)
    if required:
        missing = [n for n in program.inputs if n not in out]
        if missing:
            raise SimulationError(
                f"input{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(n) for n in missing)} "
                f"{'are' if len(missing) > 1 else 'is'} missing (the program's "
                f"inputs: {listed})")
    return out
