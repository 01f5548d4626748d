"""The emulation target: a compiled program's outputs, fast, bit for bit
those of the simulator, on an NVIDIA GPU (``device="cuda"``) or on the CPU.

    result = emulate(program, {"x": x}, device="cuda")    # or program.emulate(...)
    result.outputs["y"]

Both backends execute one decoded form of the program, the instruction table
(:mod:`.table`); the CPU backend is a NumPy interpreter of it, the CUDA
backend one persistent kernel in which each group of thread blocks runs tiles
(:mod:`.cuda`, :mod:`.kernel`). Neither models time: transfers complete when
issued, and only the semaphores order tiles. Before anything runs, the
program is run once without arithmetic to find a deadlock, which is reported
(which tile waits for which semaphore) rather than hung on.
docs/gpu-emulation.md says how tiles, memories, transfers and
synchronization map onto the GPU and why the results are the simulator's.

Imports nothing from MLIR; the CUDA backend needs CuPy (imported when used).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from .. import numerics
from ..program import Program
from ..inputs import check_inputs
from ..results import SimulationError
from .errors import DeadlockError, EmulationError
from .schedule import run_tiles
from .table import Table, build_table

DEVICES = ("cpu", "cuda")

__all__ = ["DEVICES", "DeadlockError", "EmulationError", "EmulationResult",
           "emulate"]


@dataclass
class EmulationResult:
    """The outputs of one run (host arrays, as ``SimulationResult.outputs``:
    bf16 widened to float32), the device that ran it, the wall time of the
    run (inputs in, execution, outputs out) and the instructions executed."""

    outputs: dict[str, np.ndarray]
    device: str
    seconds: float
    instructions: int


def _checked_inputs(program: Program, inputs: Mapping[str, Any]) -> dict:
    try:
        return check_inputs(program, inputs)
    except SimulationError as e:
        raise EmulationError(str(e)) from None


def initial_arena(program: Program, table: Table) -> np.ndarray:
    """The arena before the program runs: the DRAM image, SRAM zeroed (as in
    the simulator), no inputs yet."""
    arena = np.zeros(table.arena_bytes, np.uint8)
    image = np.frombuffer(program.dram_image, np.uint8)
    arena[:image.size] = image
    return arena


def input_regions(program: Program, inputs: Mapping[str, np.ndarray]):
    """``(arena offset, bytes)`` of each input in storage form."""
    for name, raw in inputs.items():
        buf = program.buffer(name)
        yield buf.offset, np.ascontiguousarray(raw).view(np.uint8).reshape(-1)


def read_outputs(program: Program, fetch: Callable[[int, int], np.ndarray]
                 ) -> dict[str, np.ndarray]:
    """The output buffers; ``fetch(offset, size)`` returns those DRAM bytes
    as a host ``uint8`` array."""
    outputs = {}
    for name in program.outputs:
        b = program.buffer(name)
        raw = fetch(b.offset, b.nbytes).view(
            numerics.STORAGE[b.dtype]).reshape(b.shape)
        outputs[name] = numerics.from_storage(raw.copy(), b.dtype)
    return outputs


def check_schedule(program: Program, table: Table) -> None:
    """Raise :class:`DeadlockError` if the program deadlocks (decided once per
    program, without arithmetic: the outcome does not depend on data)."""
    if not getattr(program, "_emulator_schedule_ok", False):
        run_tiles(table)
        program._emulator_schedule_ok = True


def emulate(program: Program, inputs: Mapping[str, Any] | None = None, *,
            device: str = "cuda") -> EmulationResult:
    """Run ``program`` to its end on ``device`` (``"cuda"`` or ``"cpu"``).

    ``inputs`` as for :func:`~tessel.runtime.simulator.simulate`: every input
    buffer, nothing else. The outputs are bit for bit the simulator's.
    Raises :class:`DeadlockError` for a program that deadlocks and
    :class:`EmulationError` for bad inputs or a missing CUDA backend (both
    are ``SimulationError``s)."""
    if device not in DEVICES:
        raise EmulationError(f"device {device!r} is not one of "
                             f"{', '.join(DEVICES)}")
    raw_inputs = _checked_inputs(program, inputs or {})
    table = build_table(program)
    check_schedule(program, table)
    start = time.perf_counter()
    if device == "cpu":
        from . import cpu
        arena = initial_arena(program, table)
        for offset, data in input_regions(program, raw_inputs):
            arena[offset:offset + data.size] = data
        cpu.run(table, arena)
        outputs = read_outputs(program, lambda offset, size: arena[offset:offset + size])
    else:
        from . import cuda
        outputs = cuda.prepared(program, table).run(raw_inputs)
    return EmulationResult(outputs, device, time.perf_counter() - start,
                           table.instructions)
