"""The mapper's view of a model: its linalg ops in program order, each with
its iteration domain, loop kinds, operands (shape, element size, how each
loop indexes them, where they come from) and the producer -> consumer edges
between ops.

Built from legalized linalg-on-tensors (after the legalize passes that run
before ``tessel-default-mapping``) through the MLIR Python bindings, or by
hand (tests, random graphs): the cost model and the solvers read only these
plain dataclasses.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, fields, replace
from functools import cached_property, lru_cache

from ..errors import TesselError

# What an op lowers to (docs/lowering.md, "Compute"): the cost model times
# each kind the way tessel-lower-to-instructions emits it.
KINDS = ("matmul", "batch_matmul", "conv", "window", "elementwise",
         "reduction", "fill", "copy")

_NAMED_KINDS = {
    "linalg.matmul": "matmul",
    "linalg.batch_matmul": "batch_matmul",
    "linalg.conv_2d_nchw_fchw": "conv",
    "linalg.depthwise_conv_2d_nchw_chw": "window",
    "linalg.pooling_nchw_max": "window",
    "linalg.pooling_nchw_sum": "window",
    "linalg.fill": "fill",
    "linalg.copy": "copy",
    "linalg.transpose": "copy",
    "linalg.broadcast": "copy",
}

# Ops that only re-view a tensor: a consumer of their result reads the
# tensor they view (the lowering keeps it in the same DRAM buffer; a
# tessel.pad_view's border is filled in SRAM, not read).
_VIEW_OPS = ("tensor.expand_shape", "tensor.collapse_shape",
             "tensor.extract_slice", "tensor.insert_slice", "tensor.reshape",
             "tensor.cast", "tessel.pad_view", "tessel.transpose_view")


class GraphError(TesselError, ValueError):
    """The module holds something the mapper cannot describe."""


def _hash_once(self) -> int:
    """The hash of a frozen dataclass's fields, computed once: the cost
    model's caches key on ops and operands millions of times, and the
    generated hash walks every field (and an op's operands) each time."""
    cached = self.__dict__.get("_hash")
    if cached is None:
        cached = hash(tuple(getattr(self, f.name) for f in fields(self)))
        self.__dict__["_hash"] = cached
    return cached


def _state_without_hash(self) -> dict:
    """Pickled state without the cached hash, which another process (its
    own string hashes) would not share."""
    state = dict(self.__dict__)
    state.pop("_hash", None)
    return state


@dataclass(frozen=True)
class Access:
    """One dimension of an operand as an affine function of the loops:
    ``const + sum(coeff * loop)``; ``terms`` None means a non-affine access
    (the whole dimension is read whatever the loop slice)."""

    terms: tuple[tuple[int, int], ...] | None   # (loop, coefficient)
    const: int = 0

    def loop(self) -> int | None:
        """The loop this dimension is indexed by alone (``i``), or None."""
        terms = self.terms
        if terms is None or self.const != 0 or len(terms) != 1 \
                or terms[0][1] != 1:
            return None
        return terms[0][0]

    def extent(self, steps: tuple[int, ...], full: int) -> int:
        """Elements of this dimension a slice of ``steps`` iterations per
        loop touches (the largest index plus one), as
        tessel-tile-for-sram computes it."""
        # The mapper asks millions of times: a plain loop, no generators.
        terms = self.terms
        if terms is None or self.const < 0:
            return full
        last = self.const + 1
        for loop, coefficient in terms:
            if coefficient < 0:
                return full
            last += coefficient * (steps[loop] - 1)
        return last if last < full else full


@dataclass(frozen=True)
class Operand:
    """A tensor an op reads or writes. ``source`` is ``("arg", i)`` for the
    function's argument i, ``("op", j)`` for the result of op j, or
    ``("new", None)`` for a fresh tensor (``tensor.empty``)."""

    shape: tuple[int, ...]
    elem_bytes: int
    access: tuple[Access, ...]
    is_output: bool = False
    read: bool = True            # outputs are read by reductions and matmuls
    source: tuple[str, int | None] = ("new", None)
    role: str = "activation"     # input | weight | activation | output
    filled: bool = False         # an accumulator whose fill is folded into it
    # An accumulator a broadcast of a function argument sets instead (a
    # bias, tessel-fold-bias-adds): the dimensions that argument spans,
    # whose slice each accumulator loads. Empty otherwise.
    seed_dims: tuple[int, ...] = ()
    seed_is_weight: bool = False  # kept in SRAM with the weights if resident
    # Read through a tessel.pad_view of its source: a window of the padded
    # tensor, of which the part inside the source is loaded.
    padded: bool = False
    # The view ops it is read through, from the reader back to its source
    # (``tensor.expand_shape``, ``tensor.extract_slice``, ...).
    views: tuple[str, ...] = ()

    __hash__ = _hash_once
    __getstate__ = _state_without_hash

    @cached_property
    def indexed_loops(self) -> frozenset[int]:
        """The loops some dimension of the operand varies with."""
        return frozenset(loop for a in self.access for loop, _ in (a.terms or ()))

    @property
    def nbytes(self) -> int:
        n = self.elem_bytes
        for d in self.shape:
            n *= d
        return n

    @lru_cache(maxsize=1 << 18)
    def slice_bytes(self, steps: tuple[int, ...]) -> int:
        """Bytes of the slice ``steps`` of the loops touch (cached: the cost
        model asks for the same slices over and over)."""
        n = self.elem_bytes
        for acc, full in zip(self.access, self.shape):
            n *= acc.extent(steps, full)
        return n

    def seed_bytes(self, steps: tuple[int, ...]) -> int:
        """Bytes of the seed slice that sets this accumulator's slice of
        ``steps`` (0 without a seed)."""
        if not self.seed_dims:
            return 0
        n = self.elem_bytes
        for d in self.seed_dims:
            n *= self.access[d].extent(steps, self.shape[d])
        return n


@dataclass(frozen=True)
class Op:
    """One linalg op: ``loops`` are the extents of its iteration domain,
    ``iterators`` ``"parallel"`` or ``"reduction"`` per loop."""

    index: int
    name: str
    kind: str
    loops: tuple[int, ...]
    iterators: tuple[str, ...]
    operands: tuple[Operand, ...]
    vector_ops: int = 1          # vector instructions per step (elementwise)
    temporaries: int = 1         # SRAM temporaries per step, at most (body values)
    captured: int = 0            # values a body uses from outside it
    gathered_bytes: int = 0      # bytes a point reads from tables by index
    tag: str = ""                # the source line the program's tag names
    window: tuple[int, ...] = ()  # kernel taps (window kind)
    weighted: bool = False       # depthwise: a multiply per tap
    folded: bool = False         # folded into a neighbour: runs no code of its own
    # The elementwise op that runs on each slice of this op's result before
    # it is stored (tessel-fuse-epilogues), which is then ``folded``.
    epilogue: Op | None = None

    __hash__ = _hash_once
    __getstate__ = _state_without_hash

    def __post_init__(self):
        if self.kind not in KINDS:
            raise GraphError(f"op #{self.index} ({self.name}) has kind "
                             f"{self.kind!r}; known: {', '.join(KINDS)}")
        if len(self.loops) != len(self.iterators):
            raise GraphError(f"op #{self.index} ({self.name}): {len(self.loops)} "
                             f"loops but {len(self.iterators)} iterator types")

    @cached_property
    def parallel_loops(self) -> tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.iterators) if t == "parallel")

    @cached_property
    def reduction_loops(self) -> tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.iterators) if t == "reduction")

    @property
    def macs(self) -> int:
        """Multiply-accumulates of a MAC-array op (0 for vector ops)."""
        if self.kind not in ("matmul", "batch_matmul", "conv"):
            return 0
        n = 1
        for x in self.loops:
            n *= x
        return n

    @property
    def weight_bytes(self) -> int:
        return sum(o.nbytes for o in self.operands if o.role == "weight")

    def label(self) -> str:
        return f"#{self.index} {self.name.removeprefix('linalg.')}"


@dataclass(frozen=True)
class Graph:
    """The ops of a model in program order and its producer -> consumer
    edges ``(producer, consumer, bytes)``."""

    name: str
    ops: tuple[Op, ...]
    edges: tuple[tuple[int, int, int], ...] = field(default=())

    def __post_init__(self):
        for i, op in enumerate(self.ops):
            if op.index != i:
                raise GraphError(f"op {op.label()} is at position {i}")
        for p, c, _ in self.edges:
            if not 0 <= p < c < len(self.ops):
                raise GraphError(f"edge {p} -> {c} does not go forward in "
                                 "program order")


def edges_of(ops: tuple[Op, ...]) -> tuple[tuple[int, int, int], ...]:
    """Producer -> consumer edges from the operands' sources, with the bytes
    of the tensor passed (once per pair)."""
    seen: dict[tuple[int, int], int] = {}
    for op in ops:
        for o in op.operands:
            kind, j = o.source
            if kind == "op" and j != op.index:
                seen[(j, op.index)] = max(seen.get((j, op.index), 0), o.nbytes)
    return tuple((p, c, b) for (p, c), b in sorted(seen.items()))


# ---------------------------------------------------------------------------
# From MLIR (needs the bindings, imported when called).
# ---------------------------------------------------------------------------

def _linear(expr) -> Access:
    """``expr`` (an AffineExpr) as const + sum(coeff * dim), or a non-affine
    access when it is not of that form."""
    from ..ir import (AffineAddExpr, AffineConstantExpr, AffineDimExpr,
                      AffineMulExpr)

    def walk(e):
        e = e.maybe_downcast()
        if isinstance(e, AffineDimExpr):
            return {e.position: 1}, 0
        if isinstance(e, AffineConstantExpr):
            return {}, e.value
        if isinstance(e, (AffineAddExpr, AffineMulExpr)):
            lt, lc = walk(e.lhs)
            rt, rc = walk(e.rhs)
            if lt is None or rt is None:
                return None, 0
            if isinstance(e, AffineAddExpr):
                for k, v in rt.items():
                    lt[k] = lt.get(k, 0) + v
                return lt, lc + rc
            if lt and rt:
                return None, 0      # a product of loops
            terms, c, scale = (lt, lc, rc) if not rt else (rt, rc, lc)
            return {k: v * scale for k, v in terms.items()}, c * scale
        return None, 0

    terms, const = walk(expr)
    if terms is None:
        return Access(None, 0)
    return Access(tuple(sorted(terms.items())), const)


def _elem_bytes(element_type) -> int:
    width = getattr(element_type, "width", None)
    if width is None:
        digits = "".join(ch for ch in str(element_type) if ch.isdigit())
        width = int(digits or 32)
    return max(1, (width + 7) // 8)


def _source(value, op_index_of) -> list[tuple[str, int | None]]:
    """Where a tensor value comes from, through view ops: function
    arguments and op results (both tensors of an insert_slice)."""
    from ..ir import BlockArgument

    value = value.maybe_downcast()
    if isinstance(value, BlockArgument):
        return [("arg", value.arg_number)]
    owner = value.owner
    key = op_index_of.get(owner)
    if key is not None:
        return [("op", key)]
    if owner.name in _VIEW_OPS:
        out = []
        for operand in owner.operands:
            if hasattr(operand.type, "shape"):
                out.extend(_source(operand, op_index_of))
        return out
    return [("new", None)]


def _views(value, op_index_of) -> tuple[str, ...]:
    """The names of the view ops ``value`` is, from it back to the op
    result or argument it views (the first operand of each)."""
    from ..ir import BlockArgument

    names = []
    value = value.maybe_downcast()
    while not isinstance(value, BlockArgument):
        owner = value.owner
        if owner in op_index_of or owner.name not in _VIEW_OPS:
            break
        names.append(owner.name)
        value = owner.operands[0].maybe_downcast()
    return tuple(names)


def _defined_by(value, name: str) -> bool:
    """Whether ``value`` is the result of an op named ``name``."""
    from ..ir import OpResult

    value = value.maybe_downcast()
    return isinstance(value, OpResult) and value.owner.name == name


def _linalg_ops(func) -> list:
    """The linalg ops of a function's body, in program order."""
    return [op for op in func.regions[0].blocks[0].operations
            if op.operation.name.startswith("linalg.")
            and op.operation.name not in ("linalg.yield", "linalg.index")]


def _describe(op) -> str:
    from ..frontend.locations import describe_location

    described = describe_location(op.location)
    return described[0] if described else ""


def _vector_ops(generic) -> int:
    """Vector instructions one step of an elementwise or reduction generic
    becomes: one per body op, and one for the five of a GELU
    (:func:`_gelu_interior`). Its constants are captured (the graph's
    generalization hoists them out of the body): each an op's immediate,
    or one element filled and read through zero strides."""
    body = generic.regions[0].blocks[0].operations
    interior = _gelu_interior(body)
    return max(1, sum(1 for bop in body
                      if bop.operation.name != "linalg.yield"
                      and bop.operation not in interior))


def _temporaries(generic) -> int:
    """SRAM temporaries one step of a generic may take: one per body op, as
    tessel-tile-for-sram bounds them (getScratchBytes), a GELU's five ops
    counted as five though they run as one instruction. Counting the one
    it writes let the mapper take longer steps for BERT's FFN1 on
    tessel-16x16 (k 64 -> 192), which its transfer model ranks faster and
    which ran 15 % slower (docs/mapper.md)."""
    return max(1, sum(1 for bop in generic.regions[0].blocks[0].operations
                      if bop.operation.name != "linalg.yield"))


def _f32_constant(value, expected: float) -> bool:
    """Whether ``value`` is an arith.constant of f32 ``expected``, bit for
    bit (isF32Constant in Bodies.cpp)."""
    from ..ir import FloatAttr, OpResult

    if not isinstance(value, OpResult) or str(value.type) != "f32" or \
            value.owner.name != "arith.constant":
        return False
    attr = value.owner.attributes["value"]
    return isinstance(attr, FloatAttr) and \
        struct.pack("<f", attr.value) == struct.pack("<f", expected)


def _gelu_interior(body) -> list:
    """The ops of a body's GELU chains in PyTorch's erf form, ``x *
    ((erf(x / sqrt(2)) + 1) * 0.5)`` in f32, but the last product:
    tessel-lower-to-instructions runs each chain as one ``gelu``
    (matchGelu in lib/Conversion/TesselToInstructions), which computes
    these ops' values and reads their constants in itself."""
    from ..ir import OpResult

    def defined(value, name):
        value = value.maybe_downcast()
        if isinstance(value, OpResult) and value.owner.name == name:
            return value.owner.operation
        return None

    def sole_user(op):
        uses = list(op.results[0].uses)
        return uses[0].owner.operation if len(uses) == 1 else None

    def reads(op, constant) -> bool:
        return any(_f32_constant(v.maybe_downcast(), constant) for v in op.operands)

    interior = []
    for bop in body:
        erf = bop.operation
        if erf.name != "math.erf" or str(erf.results[0].type) != "f32":
            continue
        scaled = defined(erf.operands[0], "arith.divf")
        add = sole_user(erf)
        cdf = sole_user(add) if add is not None and add.name == "arith.addf" else None
        product = sole_user(cdf) if cdf is not None and cdf.name == "arith.mulf" else None
        if scaled is None or product is None or product.name != "arith.mulf" or \
                len(list(scaled.results[0].uses)) != 1 or \
                not _f32_constant(scaled.operands[1].maybe_downcast(), math.sqrt(2.0)) or \
                not reads(add, 1.0) or not reads(cdf, 0.5):
            continue
        if scaled.operands[0] in (product.operands[0], product.operands[1]):
            interior += [scaled, erf, add, cdf]
    return interior


def _gathered_bytes(generic) -> int:
    """Bytes one point of a generic reads from DRAM tables at data-dependent
    indices: its body's lookups of tensors from outside it, which after
    legalizing are gathers (tessel.dma_gather)."""
    body = generic.regions[0].blocks[0]
    inside = {op.operation for op in body.operations}
    return sum(_elem_bytes(bop.results[0].type)
               for bop in body.operations
               if bop.operation.name == "tensor.extract"
               and getattr(bop.operands[0].owner, "operation", None) not in inside)


def _captured(generic) -> int:
    """Values a generic's body uses from outside it (float constants the
    lowering fills into temporaries; an upper bound, as
    :func:`_temporaries`)."""
    from ..ir import BlockArgument

    body = generic.regions[0].blocks[0]
    inside = {op.operation for op in body.operations}
    outside = set()
    for bop in body.operations:
        for value in bop.operands:
            value = value.maybe_downcast()
            if isinstance(value, BlockArgument):
                if value.owner != body:
                    outside.add(value)
            elif value.owner not in inside:
                outside.add(value)
    return len(outside)


def from_module(module, *, name: str = "model", roles: list[str] | None = None) -> Graph:
    """The graph of ``module``'s single function. ``roles`` gives each
    argument's role (``input`` or ``weight``, the frontend's signature);
    returned tensors are ``output``. The module is not changed: named ops
    are read through a generalized clone, which has the same ops in the
    same order with the same iteration domains."""
    from ..ir import AffineMapAttr, ArrayAttr, Module
    from ..passmanager import PassManager

    funcs = [op for op in module.body.operations
             if op.operation.name == "func.func"]
    if len(funcs) != 1:
        raise GraphError(f"expected one function, found {len(funcs)}")
    clone = Module.parse(str(module), module.context)
    PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))",
                      module.context).run(clone.operation)
    gfuncs = [op for op in clone.body.operations
              if op.operation.name == "func.func"]
    named, generic = _linalg_ops(funcs[0]), _linalg_ops(gfuncs[0])
    if len(named) != len(generic):
        raise GraphError("generalizing the named ops changed their number")
    index_of = {op.operation: i for i, op in enumerate(named)}
    returned = set()
    for op in funcs[0].regions[0].blocks[0].operations:
        if op.operation.name == "func.return":
            for v in op.operands:
                returned.update(j for k, j in _source(v, index_of) if k == "op")

    ops = []
    for i, (op, gop) in enumerate(zip(named, generic)):
        opname = op.operation.name
        maps = [AffineMapAttr(a).value
                for a in ArrayAttr(gop.attributes["indexing_maps"])]
        iterators = tuple("reduction" if "reduction" in str(t) else "parallel"
                          for t in ArrayAttr(gop.attributes["iterator_types"]))
        loops = [0] * len(iterators)
        n_inputs = len(gop.operands) - len(gop.results)
        body = gop.regions[0].blocks[0]
        operands = []
        for k, (value, amap) in enumerate(zip(gop.operands, maps)):
            if not hasattr(value.type, "shape"):
                continue        # a scalar lives in the instruction
            access = tuple(_linear(e) for e in amap.results)
            shape = tuple(value.type.shape)
            for acc, extent in zip(access, shape):
                loop = acc.loop()
                if loop is not None:
                    loops[loop] = max(loops[loop], extent)
            is_output = k >= n_inputs
            read = not is_output or len(list(body.arguments[k].uses)) > 0
            sources = _source(op.operands[k], index_of)
            source = next((s for s in sources if s[0] == "op"),
                          sources[0] if sources else ("new", None))
            if source[0] == "arg":
                role = roles[source[1]] if roles else "input"
            elif is_output and i in returned:
                role = "output"
            else:
                role = "activation"
            padded = _defined_by(op.operands[k], "tessel.pad_view")
            operands.append(Operand(shape=shape,
                                    elem_bytes=_elem_bytes(value.type.element_type),
                                    access=access, is_output=is_output,
                                    read=read, source=source, role=role,
                                    padded=padded,
                                    views=_views(op.operands[k], index_of)))
        kind = _NAMED_KINDS.get(opname)
        if kind is None:
            kind = "reduction" if "reduction" in iterators else "elementwise"
        window = tuple(loops[l] for l in range(len(loops))
                       if iterators[l] == "reduction") if kind == "window" else ()
        ops.append(Op(index=i, name=opname, kind=kind, loops=tuple(loops),
                      iterators=iterators, operands=tuple(operands),
                      vector_ops=_vector_ops(gop)
                      if kind in ("elementwise", "reduction") else 1,
                      temporaries=_temporaries(gop)
                      if kind in ("elementwise", "reduction") else 1,
                      captured=_captured(gop)
                      if kind in ("elementwise", "reduction") else 0,
                      gathered_bytes=_gathered_bytes(gop)
                      if kind in ("elementwise", "reduction") else 0,
                      tag=_describe(op), window=window,
                      weighted="depthwise" in opname))
    ops = tuple(fold_epilogues(fold_fills(ops)))
    return Graph(name=name, ops=ops, edges=edges_of(ops))


def _at_own_indices(o: Operand) -> bool:
    """Whether ``o`` is read at the loops' indices: dimension d at loop d."""
    return all(a.terms == ((d, 1),) and a.const == 0
               for d, a in enumerate(o.access))


def _reads_in_order(o: Operand) -> bool:
    """Whether ``o`` is read at some of the loops' indices in order, its
    other dimensions at 0 (a broadcast), as an epilogue's inputs must be."""
    last = -1
    for a in o.access:
        if not a.terms:
            if a.terms is None or a.const != 0:
                return False
            continue
        if len(a.terms) != 1 or a.terms[0][1] != 1 or a.const != 0 \
                or a.terms[0][0] <= last:
            return False
        last = a.terms[0][0]
    return True


def readers_of(ops) -> dict[int, list[int]]:
    """For each op whose result other ops read, the index of each operand's
    op that reads it, in order (an op reading it twice, twice)."""
    readers: dict[int, list[int]] = {}
    for op in ops:
        for o in op.operands:
            if o.source[0] == "op":
                readers.setdefault(o.source[1], []).append(op.index)
    return readers


def epilogue_obstacle(ops, readers: dict[int, list[int]], producer: Op) -> str | None:
    """Why the op reading ``producer``'s result cannot run on its slices
    (tessel-fuse-epilogues); None where it can: it alone reads the result,
    right after it, at its own indices; its other inputs are read at its
    indices in order (a bias, a residual), none looked up. Its output may
    have another element size (an f32 accumulator truncated to bf16)."""
    mine = readers.get(producer.index, ())
    if len(set(mine)) != 1:
        return f"read by {len(set(mine))} ops"
    i = mine[0]
    if len(mine) != 1:
        return f"its reader {ops[i].label()} reads it more than once"
    op = ops[i]
    outs = [o for o in producer.operands if o.is_output]
    theirs = [o for o in op.operands if o.is_output]
    if op.name != "linalg.generic" or op.reduction_loops or op.gathered_bytes \
            or len(theirs) != 1:
        return f"its reader {op.label()} is not an elementwise op"
    if producer.folded or producer.epilogue or op.epilogue or len(outs) != 1:
        return f"it or its reader {op.label()} runs with another op already"
    # Right after it (tessel-fuse-epilogues moves nothing between).
    if i != producer.index + 1:
        return f"its reader {op.label()} does not come right after it"
    if outs[0].role == "output":
        return "it is an output of the model"
    reads = [o for o in op.operands if not o.is_output
             and o.source == ("op", producer.index)]
    others = [o for o in op.operands if not o.is_output
              and o.source != ("op", producer.index)]
    if not _at_own_indices(theirs[0]) or len(reads) != 1 or not _at_own_indices(reads[0]) \
            or reads[0].shape != outs[0].shape \
            or "tessel.transpose_view" in reads[0].views:
        return f"its reader {op.label()} reads it at other indices"
    if not all(_reads_in_order(o) for o in others):
        return f"its reader {op.label()} reads another input out of order"
    return None


def fold_epilogues(ops) -> list[Op]:
    """``ops`` with each elementwise op that can run on the slices of the
    op right before it (tessel-fuse-epilogues, :func:`epilogue_obstacle`)
    marked ``folded``, and recorded as that op's ``epilogue``.
    :func:`space.choose_epilogues` keeps those that pay."""
    ops = list(ops)
    readers = readers_of(ops)
    for producer in list(ops):
        producer = ops[producer.index]
        if epilogue_obstacle(ops, readers, producer) is not None:
            continue
        i = readers[producer.index][0]
        ops[i] = replace(ops[i], folded=True)
        ops[producer.index] = replace(producer, epilogue=ops[i])
    return ops


def _seed(op: Op) -> Operand | None:
    """The input of a broadcast of a function argument; None for any other
    op."""
    if op.name != "linalg.broadcast":
        return None
    inputs = [o for o in op.operands if not o.is_output]
    if len(inputs) != 1 or inputs[0].source[0] != "arg" \
            or not inputs[0].indexed_loops:
        return None
    return inputs[0]


def fold_fills(ops) -> list[Op]:
    """``ops`` with each fill of a fresh tensor that only initializes the
    accumulator of one reduction (a matmul's or convolution's zero init)
    marked ``folded``, and that accumulator ``filled``:
    tessel-promote-to-sram sets such an accumulator in SRAM instead of
    loading it and erases the fill, where the accumulator is loaded once per
    element (the cost model checks that per step choice). A broadcast of a
    function argument (a bias, tessel-fold-bias-adds) folds the same way,
    the accumulator loading the argument's slice (``seed_dims``)."""
    ops = list(ops)
    consumers = readers_of(ops)
    for i, op in enumerate(ops):
        if not op.reduction_loops:
            continue
        outputs = [k for k, o in enumerate(op.operands) if o.is_output]
        if len(outputs) != 1:
            continue
        k = outputs[0]
        out = op.operands[k]
        kind, j = out.source
        if kind != "op" or not out.read or consumers.get(j) != [i]:
            continue
        fill = ops[j]
        fill_out = [o for o in fill.operands if o.is_output]
        seed = _seed(fill)
        if (fill.kind != "fill" and seed is None) or len(fill_out) != 1 \
                or fill_out[0].source != ("new", None) \
                or fill_out[0].shape != out.shape:
            continue
        ops[j] = replace(fill, folded=True)
        operands = list(op.operands)
        # A broadcast's loops are its output's dimensions.
        operands[k] = replace(
            out, filled=True,
            seed_dims=tuple(sorted(seed.indexed_loops)) if seed else (),
            seed_is_weight=bool(seed) and seed.role == "weight")
        ops[i] = replace(op, operands=tuple(operands))
    return ops
