"""The frontend process: torch, torch.export and torch-mlir run here, never in
the compiler process (the two LLVMs clash in one process; see docs/frontend.md).

Started by ``tessel.frontend.worker`` as ``python -m tessel.frontend._worker``.
It reads requests on stdin and answers on the stdout it was started with;
everything printed by libraries goes to stderr instead. A request is a dict
with an ``op``; the answer is ``{"ok": True, ...}`` or ``{"ok": False,
"error": <FrontendError subclass name>, "message": ..., "traceback": ...}``.
"""

from __future__ import annotations

import inspect
import io
import os
import pickle
import re
import sys
import traceback

# Requests must be answered on the real stdout; libraries print to fd 1 too.
_PROTO_OUT = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)
sys.stdout = sys.stderr

import numpy as np  # noqa: E402

from tessel.errors import MissingExtraError, missing_extra  # noqa: E402
from tessel.frontend import _capture, _protocol  # noqa: E402


class Failure(Exception):
    """An expected failure: ``kind`` names the FrontendError subclass the
    compiler process raises."""

    def __init__(self, kind: str, message: str, **extra):
        super().__init__(message)
        self.kind = kind
        self.extra = extra


_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
           "i64": "int64", "i32": "int32", "i8": "int8", "i1": "bool"}


def _torch():
    import torch
    return torch


def _unpickle(blob: bytes, what: str):
    try:
        return pickle.loads(blob)
    except Exception as e:
        raise Failure(
            "ModelTransferError",
            f"the frontend process cannot rebuild the {what} ({type(e).__name__}: {e}); "
            f"define its class in an importable module (not in __main__ or inside a "
            f"function) so the frontend process can import it") from e


def _func_types(module, func_name):
    """(argument types, result types) of @func_name as (shape, element type)
    pairs, the element type as MLIR prints it."""
    from torch_mlir import ir
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == func_name:
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            break
    else:
        raise Failure("LoweringError", f"torch-mlir produced no function @{func_name}")

    def spec(t):
        rt = ir.RankedTensorType(t)
        shape = [None if rt.is_dynamic_dim(i) else rt.get_dim_size(i) for i in range(rt.rank)]
        return shape, str(rt.element_type)

    return [spec(t) for t in ftype.inputs], [spec(t) for t in ftype.results]


def _dtype(et: str, what: str, role: str, name: str) -> str:
    if et not in _DTYPES:
        raise Failure("UnsupportedOpError",
                      f"{what}: element type {et} of {role} {name!r} is not supported "
                      f"(supported: {', '.join(_DTYPES)}); cast it, e.g. to float32")
    return _DTYPES[et]


def _signature(module, func_name, source, weight_names, input_names, output_names,
               what):
    arg_types, res_types = _func_types(module, func_name)
    names = list(weight_names) + list(input_names)
    if len(names) != len(arg_types):
        raise Failure("LoweringError",
                      f"{what}: @{func_name} has {len(arg_types)} arguments, expected "
                      f"{len(names)} ({len(weight_names)} weights + {len(input_names)} inputs)")
    if output_names is None or len(output_names) != len(res_types):
        output_names = (["output"] if len(res_types) == 1
                        else [f"output{i}" for i in range(len(res_types))])
    args, outs = [], []
    for i, (n, (s, et)) in enumerate(zip(names, arg_types)):
        kind = "weight" if i < len(weight_names) else "input"
        args.append({"name": n, "shape": s, "dtype": _dtype(et, what, kind, n), "kind": kind})
    for n, (s, et) in zip(output_names, res_types):
        outs.append({"name": n, "shape": s, "dtype": _dtype(et, what, "output", n),
                     "kind": "output"})
    return {"format": "tessel-imported-model", "version": 1, "func_name": func_name,
            "source": source, "args": args, "outputs": outs}


def _asm(module) -> str:
    # Locations carry the model's source lines into the compiler's errors.
    # Generic form, so ops of dialects MLIR 22 lacks (tm_tensor) still parse
    # there and the contract check can name them.
    return module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)


def _context():
    """A torch-mlir context collecting error diagnostics, which torch-mlir's
    own exceptions leave out."""
    from torch_mlir import ir
    from torch_mlir.dialects import torch as torch_d
    ctx = ir.Context()
    torch_d.register_dialect(ctx)
    errors = []

    def handler(d):
        if d.severity == ir.DiagnosticSeverity.ERROR:
            errors.append(f"{d.message} at {d.location}")
        return True

    ctx.attach_diagnostic_handler(handler)
    return ctx, errors


_OP_RE = re.compile(r"'((?:torch|tm_tensor|onnx)\.[\w.]+)'")


def _lowering_failure(e: Exception, what: str, diagnostics=(), graph=None) -> Failure:
    text = "\n".join(diagnostics) + "\n" + str(e) if diagnostics else str(e)
    m = _OP_RE.search(text)
    if m and m.group(1).startswith(("torch.constant.", "torch.prim.")):
        # A constant fails to convert only because its user did: torch-mlir
        # names the constant, at the user's source line, where the FX graph
        # still knows the op.
        where, ops = _constant_user(text, m, graph)
        if ops:
            named = (f"op '{ops[0]}'" if len(ops) == 1 else
                     f"one of the ops {', '.join(repr(o) for o in ops)}")
            return Failure(
                "UnsupportedOpError",
                f"{what}: {named} at {where} has no lowering to linalg-on-tensors in "
                f"torch-mlir; replace it in the model with supported ops (or decompose "
                f"it), then import again\n{_first_lines(text)}",
                op=ops[0] if len(ops) == 1 else None, location=where)
        return Failure(
            "UnsupportedOpError",
            f"{what}: an op at the source line below has no lowering to "
            f"linalg-on-tensors in torch-mlir (which names only '{m.group(1)}', a "
            f"value that op reads); replace that line's op with supported ops (or "
            f"decompose it), then import again\n{_first_lines(text)}", op=m.group(1))
    if m:
        op = m.group(1)
        return Failure(
            "UnsupportedOpError",
            f"{what}: op '{op}' has no lowering to linalg-on-tensors in torch-mlir; "
            f"replace it in the model with supported ops (or decompose it), then import "
            f"again\n{_first_lines(text)}", op=op)
    return Failure("LoweringError",
                   f"{what}: torch-mlir could not lower the model to linalg-on-tensors; "
                   f"rewrite the part of the model at the source line named below with "
                   f"real-valued ops torch-mlir supports:\n{_first_lines(text)}")


_NO_VALUE = object()
_CONSTANT_VALUE = re.compile(r"<\{value = (.*?)(?: : [a-z]\w*)?\}>")


def _constant_value(diagnostic: str):
    """The value of the torch.constant a diagnostic prints, as Python
    reads it (torch.constant.none: None), or _NO_VALUE."""
    if '"torch.constant.none"' in diagnostic:
        return None
    m = _CONSTANT_VALUE.search(diagnostic)
    if not m:
        return _NO_VALUE
    text = m.group(1).strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return _NO_VALUE


def _literals(node):
    """The values an FX node's op reads that are no graph values: its
    literal arguments and the defaults of those it leaves out (torch-mlir
    makes both constants)."""
    from torch.fx import Node

    schema = node.target._schema
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            value = node.args[i]
        elif arg.name in node.kwargs:
            value = node.kwargs[arg.name]
        elif arg.has_default_value():
            value = arg.default_value
        else:
            continue
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if not isinstance(v, Node):
                yield v


def _constant_user(text: str, match, graph) -> tuple[str | None, list[str]]:
    """(``file:line``, the ATen ops there that may read the constant
    ``match`` names) from the FX ``graph`` torch-mlir imported: the ops at
    the constant's source line, narrowed to those reading its value when
    any does."""
    import torch

    from tessel.frontend.contract import _location_text

    diagnostic = text[match.start():].splitlines()[0]
    loc = diagnostic.split(" at loc(", 1)[1] if " at loc(" in diagnostic else ""
    frame = _location_text(loc, _library_dirs()) if loc else ""
    where = ":".join(frame.split(":")[:2]) if frame.count(":") >= 2 else None
    if graph is None or where is None:
        return where, []
    nodes = [n for n in graph.nodes if n.op == "call_function"
             and isinstance(n.target, torch._ops.OpOverload)
             and not str(n.target).startswith(("aten._assert", "aten.sym_"))
             and _capture.source_line(n) == where]
    value = _constant_value(diagnostic)
    if value is not _NO_VALUE:
        reading = [n for n in nodes
                   if any(type(v) is type(value) and v == value for v in _literals(n))]
        nodes = reading or nodes
    return where, list(dict.fromkeys(str(n.target._overloadpacket) for n in nodes))


def _first_lines(text: str, n: int = 6) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[:n])


def _lower_program(prog, func_name, what):
    from torch_mlir import fx
    from torch_mlir.extras.fx_importer import FxImporter
    ctx, diagnostics = _context()
    try:
        return fx.export_and_import(prog, output_type="linalg-on-tensors", func_name=func_name,
                                    fx_importer=FxImporter(context=ctx))
    except Exception as e:
        raise _lowering_failure(e, what, diagnostics, prog.graph) from e


def import_torch(req):
    """A program exported in the user's process (tessel.frontend._capture):
    loaded, lowered by torch-mlir, its signature named."""
    torch = _torch()
    what = req["what"]
    try:
        prog = torch.export.load(io.BytesIO(req["program"]))
    except Exception as e:
        raise Failure("ModelTransferError",
                      f"{what}: the frontend process cannot load the exported program "
                      f"({type(e).__name__}: {e}); torch must be the same version in "
                      f"both processes") from e
    module = _lower_program(prog, req["name"], what)
    n_out = len(prog.graph_signature.user_outputs)
    out_names = (["output"] if n_out == 1 else [f"output{i}" for i in range(n_out)])
    sig = _signature(module, req["name"], "torch", req["weight_names"],
                     req["input_names"], out_names, what)
    return {"mlir": _asm(module), "signature": sig}


def import_training(req):
    torch = _torch()
    from torch._functorch.aot_autograd import aot_export_module
    from torch_mlir import fx
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    model, loss_fn = _unpickle(req["module"], "module and loss function")
    inputs = tuple(_unpickle(req["inputs"], "example inputs"))
    targets = tuple(_unpickle(req["targets"], "targets"))
    what = f"training step of {type(model).__name__}"
    model.train()

    class Step(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            xs, ys = args[:len(inputs)], args[len(inputs):]
            return (loss_fn(self.inner(*xs), *ys),)

    step = Step(model)
    try:
        gm, gsig = aot_export_module(step, list(inputs + targets), trace_joint=True,
                                     output_loss_index=0,
                                     decompositions=get_decomposition_table())
    except Exception as e:
        raise Failure("TraceError",
                      f"{what}: aot_export_module cannot trace one training step: "
                      f"{_first_lines(str(e), 4)}") from e
    if gsig.buffers_to_mutate:
        raise Failure("TraceError",
                      f"{what}: the step mutates buffers {sorted(gsig.buffers_to_mutate.values())} "
                      f"(e.g. batchnorm running statistics); import a model without "
                      f"mutated buffers, or put those layers in eval mode")
    from torch_mlir.extras.fx_importer import FxImporter
    ctx, diagnostics = _context()
    try:
        module = fx.stateless_fx_import(gm, output_type="linalg-on-tensors",
                                        fx_importer=FxImporter(context=ctx),
                                        model_name=req["name"])
    except Exception as e:
        raise _lowering_failure(e, what, diagnostics, gm.graph) from e
    params = dict(step.named_parameters())
    buffers = dict(step.named_buffers())
    weight_names = list(gsig.parameters) + list(gsig.buffers)
    tensors = {**params, **buffers}
    strip = lambda n: n[len("inner."):] if n.startswith("inner.") else n  # noqa: E731
    grads = list(gsig.backward_signature.gradients_to_parameters.values())
    in_names = _capture.input_names(model, len(inputs)) + [f"target{i}" if len(targets) > 1 else "target"
                                                  for i in range(len(targets))]
    out_names = ["loss"] + [f"grad.{strip(n)}" for n in grads]
    sig = _signature(module, req["name"], "torch-training",
                     [strip(n) for n in weight_names], in_names, out_names, what)
    return {"mlir": _asm(module), "signature": sig,
            "weights": {strip(n): _capture.torch_to_host(tensors[n]) for n in weight_names}}


def _load_onnx(path, what):
    import onnx
    if not os.path.isfile(path):
        raise Failure("ModelFileError",
                      f"{what}: no such file; check the path (export one with "
                      f"torch.onnx.export(..., dynamo=True))")
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model)
    except Exception as e:
        raise Failure("ModelFileError",
                      f"{what}: not a valid ONNX model ({type(e).__name__}: "
                      f"{_first_lines(str(e), 2)}); re-export it, e.g. with "
                      f"torch.onnx.export(..., dynamo=True)") from e
    return model


# Operand positions of ONNX ops that control shapes, sizes, axes or counts
# rather than carry data. Lifted to function arguments, such an operand
# would turn static shape arithmetic into run-time reads.
_SHAPE_OPERANDS = {
    "Resize": {1, 2, 3},          # roi, scales, sizes
    "Upsample": {1},              # scales
    "Pad": {1, 3},                # pads, axes
    "Slice": {1, 2, 3, 4},        # starts, ends, axes, steps
    "Reshape": {1}, "Expand": {1}, "Tile": {1},
    "ConstantOfShape": {0},
    "Range": {0, 1, 2},
    "Squeeze": {1}, "Unsqueeze": {1},
    "Split": {1}, "TopK": {1}, "OneHot": {1}, "Trilu": {1},
    "CenterCropPad": {1, 2}, "Col2Im": {1, 2},
    "RandomNormalLike": {0}, "RandomUniformLike": {0}, "EyeLike": {0},
}


def _shape_operands(op_type: str) -> set[int]:
    if op_type.startswith("Reduce"):  # ReduceSum, ReduceMean, ...: axes
        return {1}
    return _SHAPE_OPERANDS.get(op_type, set())


def _shape_operand_names(graph) -> set[str]:
    """Names used as a shape operand anywhere in ``graph``, its subgraphs
    included."""
    import onnx
    names = set()
    for node in graph.node:
        positions = _shape_operands(node.op_type)
        names.update(n for i, n in enumerate(node.input) if i in positions and n)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                names |= _shape_operand_names(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    names |= _shape_operand_names(g)
    return names


def import_onnx(req):
    import onnx
    from onnx import numpy_helper
    from torch_mlir.extras import onnx_importer
    from torch_mlir.passmanager import PassManager

    path = req["path"]
    what = f"ONNX model {path}"
    model = _load_onnx(path, what)
    try:
        model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as e:
        raise Failure("ModelFileError",
                      f"{what}: ONNX shape inference failed: {_first_lines(str(e), 2)}") from e
    graph = model.graph
    user_inputs = [i.name for i in graph.input]
    init_names = {t.name for t in graph.initializer}
    user_inputs = [n for n in user_inputs if n not in init_names]
    # Lift floating-point tensors consumed only as data to function
    # arguments. Integer initializers (shapes, axes, indices) and those
    # feeding shape operands (Resize scales, Pad pads, ...) stay constants so
    # shapes stay static.
    shape_feeding = _shape_operand_names(graph)
    weights, kept = {}, []
    for t in graph.initializer:
        arr = numpy_helper.to_array(t)
        if arr.size > 1 and arr.dtype in (np.float32, np.float64, np.float16) \
                and t.name not in shape_feeding:
            weights[t.name] = np.ascontiguousarray(arr)
        else:
            kept.append(t)
    if weights:
        lifted = [onnx.helper.make_tensor_value_info(n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype),
                                                     list(a.shape))
                  for n, a in weights.items()]
        old_inputs = [i for i in graph.input if i.name not in init_names]
        del graph.input[:]
        graph.input.extend(lifted + old_inputs)
        del graph.initializer[:]
        graph.initializer.extend(kept)
    out_names = [o.name for o in graph.output]
    func_name = req["name"]
    graph.name = func_name
    ctx, diagnostics = _context()
    try:
        mi = onnx_importer.ModelInfo(model)
        op = mi.create_module(context=ctx).operation
        imp = onnx_importer.NodeImporter.define_function(mi.main_graph, op)
        imp.import_all()
    except Exception as e:
        raise _lowering_failure(e, what, diagnostics) from e
    try:
        with ctx:
            PassManager.parse("builtin.module(torch-onnx-to-torch-backend-pipeline)").run(op)
            PassManager.parse(
                "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)").run(op)
    except Exception as e:
        raise _lowering_failure(e, what, diagnostics) from e
    sig = _signature(_ModuleView(op), func_name, "onnx", list(weights), user_inputs, out_names,
                     what)
    return {"mlir": _asm(op), "signature": sig, "weights": weights}


class _ModuleView:
    """Gives a module operation the ``body`` the signature code reads."""

    def __init__(self, op):
        self.body = op.regions[0].blocks[0]


def export_onnx(req):
    torch = _torch()
    inputs = tuple(_unpickle(req["inputs"], "example inputs"))
    if "program" in req:
        # PT2E's quantization ops, which the program may call, registered.
        import torch.ao.quantization.fx._decomposed  # noqa: F401
        model = torch.export.load(io.BytesIO(req["program"]))
    else:
        model = _unpickle(req["module"], "module")
        model.eval()
    try:
        torch.onnx.export(model, inputs, req["path"], dynamo=True, verbose=False,
                          optimize=True, external_data=False)
    except Exception as e:
        cause = e if isinstance(e, OSError) else e.__cause__
        if isinstance(cause, OSError):
            raise Failure("ModelFileError",
                          f"module {type(model).__name__}: cannot write the ONNX file in "
                          f"{os.path.dirname(req['path'])} ({type(cause).__name__}: {cause}); "
                          f"check that the directory exists and is writable") from e
        raise Failure("TraceError",
                      f"module {type(model).__name__}: torch.onnx.export failed: "
                      f"{_first_lines(str(e), 4)}") from e
    return {"path": req["path"]}


def warm(req):
    # Pay the import cost before the first real request.
    import torch  # noqa: F401
    from torch_mlir import fx  # noqa: F401
    from torch_mlir.extras import onnx_importer  # noqa: F401
    return {}


def _library_dirs() -> list[str]:
    """Where torch and torch-mlir live: locations inside them are not the
    model's source line."""
    dirs = []
    for name in ("torch", "torch_mlir"):
        mod = sys.modules.get(name)
        path = getattr(mod, "__file__", None)
        if path:
            d = os.path.dirname(os.path.abspath(path))
            dirs += [d, os.path.realpath(d)]
    return sorted(set(dirs))


def _unexpected(e: Exception) -> dict:
    """The answer for an exception no handler foresaw: a missing optional
    package is named with the extra that installs it; anything else is a
    bug, reported with its traceback."""
    named = missing_extra(e, "the frontend process") \
        if isinstance(e, ModuleNotFoundError) else e
    if isinstance(named, MissingExtraError):
        return {"ok": False, "error": "MissingExtraError", "message": str(named),
                "module": named.name, "traceback": traceback.format_exc()}
    return {"ok": False, "error": "LoweringError",
            "message": f"the frontend failed unexpectedly ({type(e).__name__}: "
                       f"{_first_lines(str(e), 4)})",
            "traceback": traceback.format_exc()}


HANDLERS = {"torch": import_torch, "training": import_training, "onnx": import_onnx,
            "export_onnx": export_onnx, "warm": warm, "ping": lambda req: {"pid": os.getpid()}}


def main() -> int:
    stdin = sys.stdin.buffer
    while True:
        blob = _protocol.recv_bytes(stdin)
        if blob is None:
            return 0
        req = pickle.loads(blob)
        rid = req.get("id")
        if req.get("op") == "exit":
            _protocol.send(_PROTO_OUT, {"ok": True, "id": rid})
            return 0
        # The receipt tells the parent the request arrived: a process that
        # dies before sending it never acted on the request, which can then
        # safely go to a fresh process.
        _protocol.send(_PROTO_OUT, {"id": rid, "received": True})
        for p in req.get("sys_path", ()):
            if p not in sys.path:
                sys.path.append(p)
        try:
            handler = HANDLERS[req["op"]]
            answer = {"ok": True, **handler(req)}
        except Failure as f:
            answer = {"ok": False, "error": f.kind, "message": str(f),
                      "traceback": traceback.format_exc(), **f.extra}
        except Exception as e:  # a bug or an unforeseen failure: keep the whole story
            answer = _unexpected(e)
        if answer.get("ok") and "mlir" in answer:
            answer["library_dirs"] = _library_dirs()
        answer["id"] = rid  # the parent matches answers to requests by it
        sys.stderr.flush()
        _protocol.send(_PROTO_OUT, answer)


if __name__ == "__main__":
    sys.exit(main())
