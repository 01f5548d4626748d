"""The program emitter: the last compiler stage, from ``tessel.device`` IR to
a :class:`~tessel.runtime.program.Program` (docs/isa.md, "Emitting from tessel
IR").

The IR is emitted as it is: every decision the program needs is read from
the IR (DRAM offsets, semaphore ids, DMA channels and token slots, which the
``tessel-assign-*`` passes at the end of ``tessel-lowering-pipeline`` make),
and IR that lacks one is refused with the pass to run. Only the encoding is
made here: tags numbered by first appearance, views folded to the ISA's rank
4. The same IR gives the same bytes. The program is built with the runtime's
:class:`~tessel.runtime.program.ProgramBuilder`, so what the simulator reads
is exactly what was validated here.

    from tessel.compiler.emit import emit_program

    program = emit_program(module, weights={"fc1.weight": w})
    program.save("out/prog")
"""

from __future__ import annotations

import contextlib
import gc
from typing import Any, Iterator, Mapping, NamedTuple

import numpy as np

from ..errors import TesselError
from .. import arch as arch_model
from ..dialects import tessel
from ..ir import (DenseElementsAttr, DenseI64ArrayAttr, FloatAttr, IntegerAttr,
                  MemRefType, MLIRError, OpResult, Operation, Value, WalkOrder,
                  WalkResult)
from ..frontend.locations import describe_location
from ..runtime import isa
from ..runtime.numerics import STORAGE, to_storage
from ..runtime.program import (Program, ProgramBuilder,
                               ProgramError, dram, sram)

__all__ = ["EmitError", "emit_program"]

# Ops that only give another type to the memory of their first operand.
VIEW_OPS = ("memref.subview", "memref.view", "memref.expand_shape",
            "memref.collapse_shape", "memref.transpose",
            "memref.reinterpret_cast", "memref.cast")
# Ops a core may hold besides the tessel instructions and the views.
PASSIVE_OPS = VIEW_OPS + ("arith.constant", "tessel.end", "tessel.fence")

MAX_RANK = 4


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
    """Turn off the cyclic garbage collector for the emission. The emitter
    allocates a few objects per instruction (records, views) and frees few
    before it returns, so the collector would rescan them again and again
    for no garbage: a tenth of the BERT layer's emit time (7.8 s -> 7.0 s)."""
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


def _body(op: Operation) -> list[Operation]:
    """The ops of the body of ``op`` (one region, one block), in order.
    Iterating the block would make an OpView of each, a lookup by op name; a
    walk that does not enter their regions hands over the Operations, and
    costs a quarter less on BERT's 245,000."""
    ops: list[Operation] = []

    def visit(child: Operation) -> WalkResult:
        ops.append(child)
        # Into op's region (the first visit is op itself), not theirs.
        return WalkResult.ADVANCE if len(ops) == 1 else WalkResult.SKIP

    op.walk(visit, WalkOrder.PRE_ORDER)
    return ops[1:]


def _where(op) -> str:
    described = describe_location(op.location)
    return f" at {described[1] or described[0]}" if described else ""


def _name(op) -> str:
    return f"'{op.name}'{_where(op)}"


# ---------------------------------------------------------------------------
# Views.
# ---------------------------------------------------------------------------

class _Ref(NamedTuple):
    """Where an operand's elements are: a memory (``sram`` of tile ``tile``,
    or ``dram``), a byte base and element strides, with the memref's shape
    and ISA dtype."""

    space: str
    tile: tuple[int, int]
    base: int
    strides: tuple[int, ...]
    shape: tuple[int, ...]
    dtype: str

    @property
    def view(self) -> tuple[int, tuple[int, ...]]:
        return self.base, self.strides


def _int_attr(attr) -> int:
    return IntegerAttr(attr).value


def _buffer_value(op: Operation) -> np.ndarray:
    """The array a ``constant`` DRAM buffer holds (its ``value``)."""
    return np.array(DenseElementsAttr(op.attributes["value"]))


def _constant_value(value) -> int | None:
    """The integer of an ``arith.constant`` result, or ``None``."""
    owner = value.owner if isinstance(value, OpResult) else None
    if owner is None or owner.operation.name != "arith.constant":
        return None
    return _int_attr(owner.attributes["value"])


def _dtype(element_type, what: str) -> str:
    dtype = str(element_type)  # the ISA's names are MLIR's
    if dtype not in isa.DTYPES:
        raise EmitError(f"{what} has element type {element_type}; the ISA has "
                        f"{', '.join(isa.DTYPES)}")
    return dtype


# ---------------------------------------------------------------------------
# The emitter.
# ---------------------------------------------------------------------------

class _Tile:
    """Per-core state: the token slots of the transfers not yet waited
    for."""

    def __init__(self, row: int, col: int):
        self.row, self.col = row, col
        self.pending: dict[Operation, int] = {}   # transfer → its slot
        self.slots_used = 0

    def take_slot(self, transfer: Operation) -> int:
        """The transfer's ``slot`` (tessel-assign-dma-slots), now pending."""
        slot = _decision(transfer, "slot", "its token slot", "tessel-assign-dma-slots")
        self.pending[transfer] = slot
        self.slots_used = max(self.slots_used, slot + 1)
        return slot


class _Emitter:
    def __init__(self, device: Operation, weights: dict[str, Any]):
        self.device = device
        self.weights = weights
        self.arch = arch_model.Arch.from_attribute(device.attributes["arch"])
        self.builder = ProgramBuilder(self.arch)
        self.tags: dict[str, int] = {}             # printed location → tag
        self.tag_of_location: dict[Any, int | None] = {}   # location attribute → tag
        # The result of each tessel.buffer and tessel.dram_buffer, and of
        # each view of one placed so far → (space, tile, byte address).
        self.places: dict[Value, tuple[str, tuple[int, int], int]] = {}
        self.layouts: dict[Any, tuple] = {}        # memref type → layout()
        # tessel.semaphore op → (row, col, index)
        self.semaphores: dict[Operation, tuple[int, int, int]] = {}
        self.sem_inits: dict[tuple[int, int], list[int]] = {}

    def run(self) -> Program:
        ops = [op.operation for op in self.device.regions[0].blocks[0].operations]
        cores = []
        dram_ops = []
        for op in ops:
            if op.name == "tessel.dram_buffer":
                dram_ops.append(op)
            elif op.name == "tessel.buffer":
                self.declare_sram(op)
            elif op.name == "tessel.semaphore":
                self.declare_semaphore(op)
            elif op.name == "tessel.core":
                cores.append(op)
            elif op.name not in ("tessel.tile", "arith.constant",
                                 "memref.expand_shape", "memref.collapse_shape"):
                # Constants: canonicalization hoists the cores' constants here,
                # to the device, the nearest region isolated from above.
                # Reshapes: an output returned reshaped is viewed here in the
                # shape the program computes it in.
                raise EmitError(f"unexpected op {_name(op)} in the tessel.device")
        self.declare_dram(dram_ops)
        # A tile that owns semaphores but runs no code is still listed, so
        # that other tiles can signal it.
        for rc, inits in self.sem_inits.items():
            self.builder.tile(*rc, semaphores=inits)
        for core in cores:
            self.emit_core(core)
        try:
            return self.builder.build()
        except ProgramError as e:
            raise EmitError(f"the emitted program breaks docs/isa.md: {e}") from None

    # ---- declarations -----------------------------------------------------

    @staticmethod
    def tile_of(op: Operation) -> tuple[int, int]:
        tile = op.operands[0].owner
        return (_int_attr(tile.attributes["row"]), _int_attr(tile.attributes["col"]))

    def declare_sram(self, op: Operation) -> None:
        name = op.attributes["sym_name"].value
        if "address" not in op.attributes:
            raise EmitError(f"SRAM buffer @{name}{_where(op)} has no address "
                            "('at'); run SRAM allocation first")
        self.places[op.result] = ("sram", self.tile_of(op),
                                  _int_attr(op.attributes["address"]))

    def declare_semaphore(self, op: Operation) -> None:
        rc = self.tile_of(op)
        index = _decision(op, "id", "its index among the tile's semaphores",
                          "tessel-assign-semaphore-ids")
        inits = self.sem_inits.setdefault(rc, [])
        inits.extend([0] * (index + 1 - len(inits)))  # ids the tile does not use
        self.semaphores[op] = (*rc, index)
        inits[index] = _int_attr(op.attributes["init"])

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
            self.places[op.result] = ("dram", (0, 0), offset)
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

    # ---- operands ---------------------------------------------------------

    def ref(self, value, op: Operation, what: str) -> _Ref:
        """Trace ``value`` (operand ``what`` of ``op``) through view ops to
        its buffer; the view is the buffer's address plus the byte shifts of
        ``memref.view`` plus the final type's strided layout."""
        space, tile, address = self.place(value, op, what)
        strides, offset, shape, dtype, dynamic = self.layout(value.type)
        if dynamic:
            maker = value.owner.operation
            source = (f" (made by {_name(maker)})" if maker.name in VIEW_OPS
                      else "")
            raise EmitError(f"operand '{what}' of {_name(op)}{source} has a "
                            f"dynamic offset or stride ({value.type}): views "
                            "must be static after unrolling")
        if dtype not in isa.DTYPES:  # raises; the op's name is looked up only then
            _dtype(dtype, f"operand '{what}' of {_name(op)}")
        base = address + offset * isa.DTYPE_SIZE[dtype]
        return _Ref(space, tile, base, strides, shape, dtype)

    def place(self, value, op: Operation, what: str) -> tuple[str, tuple[int, int], int]:
        """``(space, tile, byte address)`` of the memory ``value`` views: its
        buffer's address plus the byte shifts of the ``memref.view`` ops on the
        way. Views noted in program order (:meth:`note_view`) are found at
        once; the walk through the view ops is for the others, and it names
        the operand when the chain does not end at a buffer."""
        places = self.places
        found = places.get(value)
        if found is not None:
            return found
        walked = []               # (view result, byte shift its op adds)
        v = value
        while found is None:
            if not isinstance(v, OpResult):
                raise EmitError(f"operand '{what}' of {_name(op)} is not a view "
                                "of a tessel.buffer or tessel.dram_buffer")
            owner = v.owner.operation
            name = owner.name
            if name not in VIEW_OPS:
                raise EmitError(f"operand '{what}' of {_name(op)} comes from "
                                f"{_name(owner)}, not from a view of a "
                                "tessel.buffer or tessel.dram_buffer")
            operands = owner.operands
            shift = (self.constant(operands[1], owner, op, what)
                     if name == "memref.view" else 0)
            walked.append((v, shift))
            v = operands[0]
            found = places.get(v)
        space, tile, address = found
        for result, shift in reversed(walked):
            address += shift
            places[result] = (space, tile, address)
        return space, tile, address

    def note_view(self, view: Operation) -> None:
        """Remember where the result of ``view`` lies, when its source's
        place is known. Views come before their uses, so noting each as the
        walk meets it makes every operand a single lookup; a view that cannot
        be placed here is left to :meth:`place`, which reports it."""
        operands = view.operands
        found = self.places.get(operands[0])
        if found is None:
            return
        space, tile, address = found
        if view.name == "memref.view":
            shift = _constant_value(operands[1])
            if shift is None:
                return
            address += shift
        self.places[view.result] = (space, tile, address)

    def layout(self, mtype) -> tuple:
        """``(strides, offset, shape, dtype, dynamic)`` of a memref type,
        computed once per type: the IR has a few hundred distinct view types
        for tens of thousands of operands, and every query through the
        bindings costs microseconds."""
        got = self.layouts.get(mtype)
        if got is None:
            memref = MemRefType(mtype)
            strides, offset = memref.get_strides_and_offset()
            dynamic = any(memref.is_dynamic_stride_or_offset(x)
                          for x in [offset, *strides])
            got = self.layouts[mtype] = (tuple(strides), offset, tuple(memref.shape),
                                         str(memref.element_type), dynamic)
        return got

    @staticmethod
    def constant(value, view: Operation, op: Operation, what: str) -> int:
        shift = _constant_value(value)
        if shift is None:
            raise EmitError(f"the byte shift of {_name(view)} (operand '{what}' "
                            f"of {_name(op)}) is not an arith.constant: views "
                            "must be static after unrolling")
        return shift

    def local(self, tile: _Tile, op: Operation, names: tuple[str, ...],
              first: int = 0) -> list[_Ref]:
        """Operands ``first ..`` of ``op``, named ``names``, each a view of
        the SRAM of the core's tile."""
        refs = [self.ref(v, op, n) for v, n in zip(list(op.operands)[first:], names)]
        for r, n in zip(refs, names):
            if r.space != "sram" or r.tile != (tile.row, tile.col):
                raise EmitError(f"operand '{n}' of {_name(op)} is not in the SRAM "
                                f"of the core's tile ({tile.row}, {tile.col})")
        return refs

    def tag(self, op: Operation) -> int | None:
        loc = op.location
        # Printing a location costs tens of microseconds and an instruction
        # shares its location with its neighbours: look it up by its
        # (uniqued) attribute first.
        key = loc.attr
        if key in self.tag_of_location:
            return self.tag_of_location[key]
        described = describe_location(loc)
        tag = None
        if described is not None:
            text = str(loc)
            if text not in self.tags:
                self.tags[text] = self.builder.add_tag(described[0], loc=described[1])
            tag = self.tags[text]
        self.tag_of_location[key] = tag
        return tag

    # ---- one core ---------------------------------------------------------

    def emit_core(self, core: Operation) -> None:
        row, col = self.tile_of(core)
        tile = _Tile(row, col)
        stream = self.builder.tile(row, col)
        for op in _body(core):
            name = op.name
            if name in VIEW_OPS:
                self.note_view(op)
                continue
            if name in PASSIVE_OPS:
                continue
            emit = _INSTRUCTIONS.get(name)
            if emit is None:
                raise EmitError(f"the emitter does not know {_name(op)} in the "
                                f"core of tile ({row}, {col})")
            emit(self, tile, stream, op, self.tag(op))
        self.builder.tile(row, col, tokens=tile.slots_used)

    @staticmethod
    def channel(op: Operation) -> int:
        """The transfer's DMA channel (tessel-assign-dma-channels; the
        verifier checked it against the arch)."""
        return _decision(op, "channel", "its DMA channel", "tessel-assign-dma-channels")

    @staticmethod
    def endpoint(r: _Ref, strides):
        if r.space == "dram":
            return dram(r.base, strides)
        return sram(r.base, strides, tile=r.tile)

    def emit_dma(self, tile: _Tile, s, op: Operation, tag) -> None:
        src = self.ref(op.operands[0], op, "source")
        dst = self.ref(op.operands[1], op, "target")
        channel = self.channel(op)
        sizes, (sv, dv) = _fit_rank(src.shape, [src.strides, dst.strides], op)
        s.dma(channel, tile.take_slot(op), src.dtype, sizes, self.endpoint(src, sv),
              self.endpoint(dst, dv), tag=tag)

    def emit_dma_multicast(self, tile: _Tile, s, op: Operation, tag) -> None:
        src = self.ref(op.operands[0], op, "source")
        dsts = [self.ref(v, op, f"target #{i}")
                for i, v in enumerate(list(op.operands)[1:])]
        channel = self.channel(op)
        sizes, views = _fit_rank(src.shape, [src.strides] + [d.strides for d in dsts],
                                 op)
        if len(set(views[1:])) != 1:
            raise EmitError(f"the targets of {_name(op)} have different strides "
                            f"({', '.join(str(list(v)) for v in views[1:])}); the "
                            "ISA's multicast writes every target with the same "
                            "strides")
        s.dma_multicast(channel, tile.take_slot(op), src.dtype, sizes,
                        self.endpoint(src, views[0]),
                        [self.endpoint(d, views[1]) for d in dsts], tag=tag)

    def emit_dma_gather(self, tile: _Tile, s, op: Operation, tag) -> None:
        table = self.ref(op.operands[0], op, "table")
        index, dst = self.local(tile, op, ("indices", "target"), first=1)
        if table.space != "dram":
            raise EmitError(f"the table of {_name(op)} is not in DRAM")
        channel = self.channel(op)
        sizes, (tv, iv, dv) = _fit_rank(
            table.shape, [table.strides, index.strides, dst.strides], op)
        s.dma_gather(channel, tile.take_slot(op), table.dtype, sizes,
                     (table.base, tv), index.dtype, (index.base, iv),
                     _int_attr(op.attributes["index_stride"]),
                     _int_attr(op.attributes["rows"]), (dst.base, dv),
                     wrap="wrap" in op.attributes, tag=tag)

    def emit_wait(self, tile: _Tile, s, op: Operation, tag) -> None:
        slots = []
        for value in op.operands:
            transfer = value.owner.operation
            # A token already waited for has completed: nothing to wait for.
            if transfer in tile.pending:
                slots.append(tile.pending.pop(transfer))
        if slots:
            s.wait(slots, tag=tag)

    def emit_signal(self, tile: _Tile, s, op: Operation, tag) -> None:
        row, col, index = self.semaphores[op.operands[0].owner.operation]
        s.signal(row, col, index, _int_attr(op.attributes["count"]), tag=tag)

    def emit_wait_semaphore(self, tile: _Tile, s, op: Operation, tag) -> None:
        row, col, index = self.semaphores[op.operands[0].owner.operation]
        s.wait_semaphore(index, _int_attr(op.attributes["count"]), tag=tag)

    def emit_matmul(self, tile: _Tile, s, op: Operation, tag) -> None:
        lhs, rhs, acc = self.local(tile, op, ("lhs", "rhs", "acc"))
        # A 3-D lhs and acc: groups of rows.
        *groups, m, k = lhs.shape
        s.matmul(lhs.dtype, m, k, rhs.shape[1], lhs.view, rhs.view, acc.view,
                 g=groups[0] if groups else 1, init="init" in op.attributes,
                 tag=tag)

    def emit_vector_unary(self, tile: _Tile, s, op: Operation, tag) -> None:
        a, out = self.local(tile, op, ("input", "result"))
        kind = tessel.VectorUnaryKind(_int_attr(op.attributes["kind"])).name
        sizes, (av, ov) = _fit_rank(a.shape, [a.strides, out.strides], op)
        s.vector_unary(kind, a.dtype, out.dtype, sizes, (a.base, av),
                       (out.base, ov), tag=tag)

    def emit_vector_binary(self, tile: _Tile, s, op: Operation, tag) -> None:
        lhs, rhs, out = self.local(tile, op, ("lhs", "rhs", "result"))
        kind = tessel.VectorBinaryKind(_int_attr(op.attributes["kind"])).name
        sizes, (lv, rv, ov) = _fit_rank(lhs.shape, [lhs.strides, rhs.strides,
                                                    out.strides], op)
        s.vector_binary(kind, lhs.dtype, sizes, (lhs.base, lv), (rhs.base, rv),
                        (out.base, ov), tag=tag)

    def emit_vector_binary_imm(self, tile: _Tile, s, op: Operation, tag) -> None:
        a, out = self.local(tile, op, ("input", "result"))
        kind = tessel.VectorBinaryKind(_int_attr(op.attributes["kind"])).name
        imm = FloatAttr(op.attributes["imm"]).value
        sizes, (av, ov) = _fit_rank(a.shape, [a.strides, out.strides], op)
        s.vector_binary_imm(kind, a.dtype, imm, sizes, (a.base, av), (out.base, ov),
                            imm_is_lhs="imm_lhs" in op.attributes, tag=tag)

    def emit_vector_fill(self, tile: _Tile, s, op: Operation, tag) -> None:
        (out,) = self.local(tile, op, ("result",))
        value = FloatAttr(op.attributes["value"]).value
        sizes, (ov,) = _fit_rank(out.shape, [out.strides], op)
        s.vector_fill(out.dtype, value, sizes, (out.base, ov), tag=tag)

    def emit_vector_compare(self, tile: _Tile, s, op: Operation, tag) -> None:
        lhs, rhs, out = self.local(tile, op, ("lhs", "rhs", "result"))
        pred = tessel.ComparePredicate(_int_attr(op.attributes["predicate"])).name
        sizes, (lv, rv, ov) = _fit_rank(lhs.shape, [lhs.strides, rhs.strides,
                                                    out.strides], op)
        s.vector_compare(pred, lhs.dtype, sizes, (lhs.base, lv), (rhs.base, rv),
                         (out.base, ov), tag=tag)

    def emit_vector_select(self, tile: _Tile, s, op: Operation, tag) -> None:
        refs = self.local(tile, op, ("cond", "lhs", "rhs", "result"))
        sizes, views = _fit_rank(refs[0].shape, [r.strides for r in refs], op)
        s.vector_select(refs[1].dtype, sizes,
                        *[(r.base, v) for r, v in zip(refs, views)], tag=tag)

    def emit_vector_reduce(self, tile: _Tile, s, op: Operation, tag) -> None:
        a, out = self.local(tile, op, ("input", "result"))
        kind = tessel.ReductionKind(_int_attr(op.attributes["kind"])).name
        dim = _int_attr(op.attributes["dim"])
        shape, in_strides, out_strides = a.shape, a.strides, out.strides
        if len(shape) > MAX_RANK:
            # Unit dimensions other than the reduced one address nothing
            # (a 3-D convolution's image batch of 1): dropped.
            keep = [i for i, n in enumerate(shape) if n != 1 or i == dim]
            kept_out = [i - (i > dim) for i in keep if i != dim]
            shape = tuple(shape[i] for i in keep)
            in_strides = tuple(in_strides[i] for i in keep)
            out_strides = tuple(out_strides[i] for i in kept_out)
            dim = keep.index(dim)
        if not 1 <= len(shape) <= MAX_RANK:
            raise EmitError(f"{_name(op)} reduces a rank-{len(a.shape)} memref; "
                            f"the ISA has ranks 1 to {MAX_RANK}")
        s.vector_reduce(kind, a.dtype, shape, dim, (a.base, in_strides),
                        (out.base, out_strides), tag=tag)


# The tessel op → the method that emits its instruction.
_INSTRUCTIONS = {f"tessel.{name}": getattr(_Emitter, f"emit_{name}") for name in (
    "dma", "dma_multicast", "dma_gather", "wait", "signal", "wait_semaphore", "matmul",
    "vector_unary",
    "vector_binary", "vector_binary_imm", "vector_fill", "vector_compare",
    "vector_select", "vector_reduce")}


def _decision(op: Operation, attribute: str, what: str, pass_name: str) -> int:
    """The integer ``attribute`` of ``op``, a decision a pass makes; the
    error names the op and the pass to run when it is missing."""
    if attribute not in op.attributes:
        raise EmitError(f"{_name(op)} has no {attribute} ({what}); run {pass_name}")
    return _int_attr(op.attributes[attribute])


def _fit_rank(shape: tuple[int, ...], strides: list[tuple[int, ...]],
              op: Operation) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """Sizes and per-operand strides of rank 1 to 4 for an elementwise
    instruction or a DMA. A rank-0 memref is one element; above rank 4,
    dimensions of size 1 are dropped and neighbours that are contiguous in
    every operand merged."""
    if not shape:
        return (1,), [(1,) for _ in strides]
    if len(shape) <= MAX_RANK:
        return shape, strides
    keep = [i for i, n in enumerate(shape) if n != 1] or [len(shape) - 1]
    sizes = [shape[i] for i in keep]
    views = [[st[i] for i in keep] for st in strides]
    i = len(sizes) - 2
    while i >= 0:
        if all(v[i] == v[i + 1] * sizes[i + 1] for v in views):
            sizes[i] *= sizes.pop(i + 1)
            for v in views:
                v[i] = v.pop(i + 1)
        i -= 1
    if len(sizes) > MAX_RANK:
        raise EmitError(f"{_name(op)} has rank {len(shape)} and its views do not "
                        f"merge to rank {MAX_RANK} or less; the ISA has ranks 1 "
                        f"to {MAX_RANK}")
    return tuple(sizes), [tuple(v) for v in views]
