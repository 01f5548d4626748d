"""The program emitter: the last compiler stage, from ``tessel.device`` IR to
a :class:`~tessel.runtime.program.Program` (docs/isa.md, "Emitting from tessel
IR").

The IR is emitted as it is: every decision the program needs is read from
the IR (DRAM offsets, semaphore ids, DMA channels and token slots, which the
``tessel-assign-*`` passes at the end of ``tessel-lowering-pipeline`` make),
and IR that lacks one is refused with the pass to run. Only the encoding is
made here: tags numbered by first appearance, views folded to the ISA's rank
4. The same IR gives the same bytes. The instruction streams are encoded in
C++ (``tessel/Target/Program/InstructionStreams.h``, through
``tessel.dialects.tessel.encode_instruction_streams``): one walk of the
cores, tens of thousands of instructions a second per tile rather than a
binding call per operand. The DRAM buffers and their data (weights,
constants) are placed here, and the program is built with the runtime's
:class:`~tessel.runtime.program.ProgramBuilder`, which validates the streams
as the loader does, so what the simulator reads is what was validated.

    from tessel.compiler.emit import emit_program

    program = emit_program(module, weights={"fc1.weight": w})
    program.save("out/prog")
"""

from __future__ import annotations

import contextlib
import gc
from typing import Any, Iterator, Mapping

import numpy as np

from ..errors import TesselError
from .. import arch as arch_model
from ..dialects import tessel
from ..ir import (DenseElementsAttr, DenseI64ArrayAttr, IntegerAttr,
                  MemRefType, MLIRError, Operation)
from ..frontend.locations import describe_location
from ..runtime import isa
from ..runtime.numerics import STORAGE, to_storage
from ..runtime.program import Program, ProgramBuilder, ProgramError

__all__ = ["EmitError", "emit_program"]


class EmitError(TesselError, ValueError):
    """IR the emitter cannot turn into a program; the message names the op,
    buffer or operand and what to do."""


def emit_program(module: Any, *,
                 weights: Mapping[str, Any] | None = None,
                 verify: bool = True) -> Program:
    """The program of the one ``tessel.device`` in ``module`` (a
    :class:`~tessel.ir.Module`, an operation holding the device, or the
    device itself).

    ``weights`` maps the name of each ``weight`` DRAM buffer to its array
    (of the buffer's shape; f32, f16, i8, i32 in their NumPy type, bf16 as
    float32, rounded to nearest even, or as uint16 bits), which goes into the
    DRAM image. ``verify=False`` skips verifying the device, for a caller
    that just did (verifying BERT's device takes over a second). Raises
    :class:`EmitError`.
    """
    device = _find_device(module)
    if verify:
        try:
            device.verify()
        except MLIRError as e:
            raise EmitError(f"the tessel.device does not verify: {e}") from None
    with _gc_paused():
        return _Emitter(device, dict(weights or {})).run()


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Turn off the cyclic garbage collector for the emission. Validating
    the streams decodes a few objects per instruction (records, views) and
    frees few before it returns, so the collector would rescan them again and
    again for no garbage."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _find_device(module: Any) -> Operation:
    root = module.operation  # a Module, an OpView and an Operation all have it
    if root.name == "tessel.device":
        return root
    found: list[Operation] = []

    def walk(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name == "tessel.device":
                        found.append(child)
                    else:
                        walk(child)

    walk(root)
    if len(found) != 1:
        raise EmitError(f"expected exactly one tessel.device, found {len(found)}")
    return found[0]


def _where(op) -> str:
    described = describe_location(op.location)
    return f" at {described[1] or described[0]}" if described else ""


def _int_attr(attr) -> int:
    return IntegerAttr(attr).value


def _buffer_value(op: Operation) -> np.ndarray:
    """The array a ``constant`` DRAM buffer holds (its ``value``)."""
    return np.array(DenseElementsAttr(op.attributes["value"]))


def _dtype(element_type, what: str) -> str:
    dtype = str(element_type)  # the ISA's names are MLIR's
    if dtype not in isa.DTYPES:
        raise EmitError(f"{what} has element type {element_type}; the ISA has "
                        f"{', '.join(isa.DTYPES)}")
    return dtype


# ---------------------------------------------------------------------------
# The emitter.
# ---------------------------------------------------------------------------

class _Emitter:
    def __init__(self, device: Operation, weights: dict[str, Any]):
        self.device = device
        self.weights = weights
        self.arch = arch_model.Arch.from_attribute(device.attributes["arch"])
        self.builder = ProgramBuilder(self.arch)

    def run(self) -> Program:
        self.declare_dram([op.operation for op in
                           self.device.regions[0].blocks[0].operations
                           if op.operation.name == "tessel.dram_buffer"])
        # The cores' instructions, each tile's semaphores and token slots,
        # and the tags, encoded in C++ (tessel/Target/Program).
        try:
            tiles, tags = tessel.encode_instruction_streams(self.device)
        except ValueError as e:
            raise EmitError(str(e)) from None
        for name, loc in tags:
            self.builder.add_tag(name, loc=loc)
        for row, col, stream, semaphores, tokens in tiles:
            self.builder.encoded_tile(row, col, stream, semaphores=semaphores,
                                      tokens=tokens)
        try:
            return self.builder.build()
        except ProgramError as e:
            raise EmitError(f"the emitted program breaks docs/isa.md: {e}") from None

    def declare_dram(self, ops: list[Operation]) -> None:
        """Each buffer at its ``at`` (tessel-assign-dram-addresses)."""
        weight_names = set()
        for op in ops:
            name = op.attributes["sym_name"].value
            mtype = MemRefType(op.results[0].type)
            dtype = _dtype(mtype.element_type, f"DRAM buffer @{name}")
            shape = tuple(mtype.shape)
            if "address" not in op.attributes:
                raise EmitError(f"DRAM buffer @{name}{_where(op)} has no address "
                                "('at'); run tessel-assign-dram-addresses")
            offset = _int_attr(op.attributes["address"])
            kind = tessel.DramBufferKind(_int_attr(op.attributes["kind"])).name
            data = None
            if kind == "weight":
                permutation = (list(DenseI64ArrayAttr(op.attributes["permutation"]))
                               if "permutation" in op.attributes else None)
                data = self.weight(name, shape, dtype, permutation)
                weight_names.add(name)
            elif kind == "constant":
                data = to_storage(_buffer_value(op), dtype)
            self.builder.add_buffer(name, kind, shape, dtype, offset=offset,
                                    data=data)
        unknown = sorted(set(self.weights) - weight_names)
        if unknown:
            raise EmitError(f"weights given for {', '.join(unknown)}: the device "
                            "has no weight buffer of that name")

    def weight(self, name: str, shape: tuple[int, ...], dtype: str,
               permutation: list[int] | None = None) -> np.ndarray:
        """The data of weight buffer ``name``; a ``permutation`` (the
        buffer's ``permuted``) transposes the model's weight into it."""
        if name not in self.weights:
            raise EmitError(f"no data for weight buffer @{name}: pass it in "
                            f"weights={{'{name}': array}}")
        array = np.asarray(self.weights[name])
        # Buffer dimension i is weight dimension permutation[i].
        expected = (shape if permutation is None else
                    tuple(shape[i] for i in np.argsort(permutation)))
        if array.shape != expected:
            raise EmitError(
                f"weight @{name} has shape {list(array.shape)}, "
                + (f"the buffer has {list(shape)}" if permutation is None else
                   f"expected {list(expected)} (the buffer holds it permuted "
                   f"by {permutation})"))
        if permutation is not None:
            array = np.transpose(array, permutation)
        accepted = [STORAGE[dtype]] + ([np.dtype(np.float32)] if dtype == "bf16" else [])
        if array.dtype not in accepted:
            raise EmitError(f"weight @{name} has NumPy dtype {array.dtype}, the "
                            f"buffer holds {dtype} (pass "
                            f"{' or '.join(str(a) for a in accepted)})")
        return to_storage(array, dtype)
