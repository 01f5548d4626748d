"""The program emitter: the last compiler stage, from ``tessel.device`` IR to
a :class:`~tessel.runtime.program.Program` (docs/isa.md, "Emitting from tessel
IR").

The IR is emitted as it is: every decision the program needs is read from
the IR (DRAM offsets, semaphore ids, DMA channels and token slots, which the
``tessel-assign-*`` passes at the end of ``tessel-lowering-pipeline`` make),
and IR that lacks one is refused with the pass to run. Only the encoding is
made here: tags numbered by first appearance, views folded to the ISA's rank
4. The same IR gives the same bytes.

The program is built by the C++ program writer
(``tessel/Target/Program/ProgramWriter.h``, the writer of
``tessel-translate --tessel-to-program``), in memory, and read by the
runtime's loader, which validates it, so what the simulator runs is what
was validated. What is done here is what only the caller has: the model's
weights, checked against their buffers and converted to the buffers' layout
and element type.

    from tessel.compiler.emit import emit_program

    program = emit_program(module, weights={"fc1.weight": w})
    program.save("out/prog")
"""

from __future__ import annotations

import contextlib
import gc
from typing import Any, Iterator, Mapping

import numpy as np

from ..errors import InvalidArgumentError, TesselError
from ..dialects import tessel
from ..ir import DenseI64ArrayAttr, IntegerAttr, MemRefType, MLIRError, Operation
from ..runtime import isa
from ..runtime.numerics import STORAGE, to_storage
from ..runtime.program import Program, ProgramError
from ..runtime.loader import program_from_files

__all__ = ["DeviceVerificationError", "EmitError", "emit_program", "weight_data",
           "weight_file_name"]


class EmitError(TesselError, ValueError):
    """IR the emitter cannot turn into a program; the message names the op,
    buffer or operand and what to do."""


class DeviceVerificationError(EmitError):
    """The ``tessel.device`` does not verify; the message has the
    verifier's diagnostics."""


def emit_program(module: Any, *,
                 weights: Mapping[str, Any] | None = None,
                 verify: bool | str = True,
                 unused_weights_ok: bool = False) -> Program:
    """The program of the one ``tessel.device`` in ``module`` (a
    :class:`~tessel.ir.Module`, an operation holding the device, or the
    device itself).

    ``weights`` maps the name of each ``weight`` DRAM buffer to its array
    (of the buffer's shape; f32, f16, i8, i32 in their NumPy type, bf16 as
    float32, rounded to nearest even, or as uint16 bits), which goes into the
    DRAM image; with ``unused_weights_ok`` it may hold weights the device has
    no buffer for. ``verify``: True verifies the device before encoding it;
    ``"alongside"`` verifies it on a second thread while the program is
    encoded and loaded, for a device a pass pipeline has just made (the
    encoder reads the IR as the passes left it, as each pass read the one
    before it; ResNet-18's device takes 0.3 s to verify); False does not,
    for a caller that just did. Raises :class:`EmitError`, and
    :class:`DeviceVerificationError` where the device does not verify
    (alongside: instead of what encoding it gave).
    """
    if verify not in (True, False, "alongside"):
        raise InvalidArgumentError(f"verify={verify!r}: pass True, False or 'alongside'")
    device = _find_device(module)
    if verify is True:
        try:
            device.verify()
        except MLIRError as e:
            raise DeviceVerificationError(
                f"the tessel.device does not verify: {e}") from None
    # Until it is finished nothing may change the IR, nor parse, verify or
    # run passes (tessel.start_verifying): the weights and the encoder read
    # the IR, and the loader reads bytes.
    verification = (tessel.start_verifying(device, module)
                    if verify == "alongside" else None)
    try:
        data = weight_data(device, weights or {}, unused_ok=unused_weights_ok)
        program, failure = _program(device, data), None
    except Exception as e:
        program, failure = None, e
    finally:
        # Finished whatever happened, before anything else touches the IR.
        problems = verification.finish() if verification is not None else None
    # IR that does not verify is the fault to report, before whatever
    # reading it gave.
    if problems is not None:
        raise DeviceVerificationError("the tessel.device does not verify (tessel-opt, "
                                      "which verifies after each pass, finds the pass "
                                      f"that made it):\n{problems}") from failure
    if failure is not None:
        raise failure
    return program


def _program(device: Operation, data: Mapping[str, bytes]) -> Program:
    """The program of ``device`` with ``data`` in its weight buffers, as
    the runtime's loader validates it."""
    try:
        # In memory, without digests: they guard files, and Program.save
        # writes its own.
        files = tessel.build_program(device, data)
    except ValueError as e:
        raise EmitError(str(e)) from None
    with _gc_paused():
        try:
            return program_from_files(files)
        except ProgramError as e:
            raise EmitError(f"the emitted program breaks docs/isa.md: {e}") from None


def weight_data(module: Any, weights: Mapping[str, Any], *,
                unused_ok: bool = False) -> dict[str, bytes]:
    """The bytes of each weight buffer of the ``tessel.device`` in
    ``module`` (as :func:`emit_program` takes it) from the model's
    ``weights``: each array checked against its buffer's
    shape (the model's, before the buffer's ``permuted``) and element type,
    transposed as the buffer holds it, in the buffer's element type. This is
    what ``tessel-translate --weights DIR`` reads, from
    ``DIR/``:func:`weight_file_name`.
    A weight the device has no buffer for is an error unless ``unused_ok``
    (a model's weights the program never reads). Raises :class:`EmitError`
    naming the weight."""
    data: dict[str, bytes] = {}
    for op in _find_device(module).regions[0].blocks[0].operations:
        op = op.operation
        if (op.name != "tessel.dram_buffer" or
                tessel.DramBufferKind(_int_attr(op.attributes["kind"])).name != "weight"):
            continue
        name = op.attributes["sym_name"].value
        mtype = MemRefType(op.results[0].type)
        permutation = (list(DenseI64ArrayAttr(op.attributes["permutation"]))
                       if "permutation" in op.attributes else None)
        dtype = _dtype(mtype.element_type, f"DRAM buffer @{name}")
        data[name] = _weight(weights, name, tuple(mtype.shape), dtype,
                             permutation).tobytes()
    unknown = sorted(set(weights) - set(data))
    if unknown and not unused_ok:
        raise EmitError(f"weights given for {', '.join(unknown)}: the device "
                        "has no weight buffer of that name")
    return data


def weight_file_name(name: str) -> str:
    """The file of weight buffer ``name`` in ``--dump-ir``'s ``weights/``,
    as ``tessel-translate --weights`` looks for it: ``<name>.bin``, with
    ``%``, ``/`` and a leading ``.`` written as ``%25``, ``%2F`` and ``%2E``
    (ONNX initializers are often named by paths)."""
    escaped = name.replace("%", "%25").replace("/", "%2F")
    if escaped.startswith("."):
        escaped = "%2E" + escaped[1:]
    return escaped + ".bin"


def _weight(weights: Mapping[str, Any], name: str, shape: tuple[int, ...],
            dtype: str, permutation: list[int] | None) -> np.ndarray:
    """The data of weight buffer ``name``; a ``permutation`` (the buffer's
    ``permuted``) transposes the model's weight into it."""
    if name not in weights:
        raise EmitError(f"no data for weight buffer @{name}: pass it in "
                        f"weights={{'{name}': array}}")
    array = np.asarray(weights[name])
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
    return np.ascontiguousarray(to_storage(array, dtype))


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Turn off the cyclic garbage collector while the program is loaded.
    Validating it decodes a few objects per instruction (records, views) and
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


def _int_attr(attr) -> int:
    return IntegerAttr(attr).value


def _dtype(element_type, what: str) -> str:
    dtype = str(element_type)  # the ISA's names are MLIR's
    if dtype not in isa.DTYPES:
        raise EmitError(f"{what} has element type {element_type}; the ISA has "
                        f"{', '.join(isa.DTYPES)}")
    return dtype
