"""``import_torch``, ``import_onnx`` and ``import_torch_training``.

torch-mlir runs in the frontend process (``worker``). A module is captured
here with ``torch.export`` (``_capture``) and sent as an exported program,
so its classes need not be importable there; training steps and ONNX
exports send the pickled module. This side receives text and signature, and
checks the text against the input contract with MLIR 22 before handing it
out.
"""

from __future__ import annotations

import os
import pickle
import re
import uuid
from pathlib import Path

from ..errors import InvalidArgumentError, missing_extra
from . import _capture, errors, worker
from ._capture import eval_mode, set_eval, torch_to_host
from .contract import check_input_contract
from .errors import ModelFileError, ModelTransferError
from .model import ImportedModel, Signature


def _torch(who: str):
    try:
        import torch
    except ModuleNotFoundError as e:
        raise missing_extra(e, who) from None
    return torch


def _func_name(name: str | None, fallback: str) -> str:
    name = name or fallback
    name = re.sub(r"\W", "_", name)
    return name if name and not name[0].isdigit() else f"m_{name}"


def _pickled(obj, what: str, owner: str) -> bytes:
    main_defined = _classes_in_main(obj)
    if main_defined:
        raise ModelTransferError(
            f"{owner}: {main_defined} is defined in __main__, which the frontend "
            f"process cannot import; move it into a module (a .py file on sys.path) and "
            f"import it from there")
    try:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise ModelTransferError(
            f"{owner}: the {what} cannot be pickled for the frontend process "
            f"({type(e).__name__}: {e}); define classes and functions at module level in "
            f"an importable module, and drop lambdas and open handles from the module") from e


def _classes_in_main(obj) -> str | None:
    """``class X`` or ``function f`` for a class or function in ``obj``
    defined in ``__main__``."""
    import inspect

    import torch
    objs = list(obj) if isinstance(obj, (tuple, list)) else [obj]
    for o in objs:
        parts = list(o.modules()) if isinstance(o, torch.nn.Module) else [o]
        for part in parts:
            defining = part if inspect.isclass(part) or inspect.isfunction(part) else type(part)
            if getattr(defining, "__module__", None) == "__main__":
                kind = "class" if inspect.isclass(defining) else "function"
                return f"{kind} {defining.__qualname__}"
    return None


def check_keep_f32(keep_f32) -> tuple[str, ...]:
    """``keep_f32`` as a sorted tuple of ATen op names, or an
    InvalidArgumentError saying what it must be."""
    names = (keep_f32,) if isinstance(keep_f32, str) else keep_f32
    try:
        names = tuple(names)
    except TypeError:
        names = None
    if names is None or not all(isinstance(n, str) and n for n in names):
        raise InvalidArgumentError(
            f"keep_f32 must name ATen ops as strings (e.g. ('gelu',)), "
            f"got {keep_f32!r}")
    return tuple(sorted(set(names)))


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _finish(answer: dict, what: str) -> ImportedModel:
    sig = Signature.from_json(answer["signature"], where=f"{what} signature")
    mlir = check_input_contract(answer["mlir"], what,
                                library_dirs=answer.get("library_dirs", ()))
    return ImportedModel(mlir=mlir, weights=answer["weights"], signature=sig)


def import_torch(module, example_inputs, *, dynamic_batch: bool = False,
                 name: str | None = None, keep_f32=()) -> ImportedModel:
    """Import an ``nn.Module`` as linalg-on-tensors.

    ``example_inputs`` is a tensor or a tuple of tensors. Parameters and
    buffers become the function's leading arguments (``signature.weights``),
    the inputs follow. With ``dynamic_batch`` dimension 0 of every input is
    dynamic (the example batch must be at least 2: torch.export specialises
    sizes 0 and 1). ``keep_f32`` names ATen ops (``"gelu"``: their
    ``torch.ops.aten`` names, without overload) that a bf16 or f16 model
    computes in f32, its result rounded back (mixed precision; softmax and
    layer norm already compute in f32 as torch-mlir decomposes them)."""
    torch = _torch("tessel.import_torch")
    owner = f"module {type(module).__name__}"
    keep_f32 = check_keep_f32(keep_f32)
    if not isinstance(module, torch.nn.Module):
        raise ModelTransferError(f"{owner}: import_torch takes a torch.nn.Module")
    inputs = _as_tuple(example_inputs)
    if not all(isinstance(t, torch.Tensor) for t in inputs):
        raise ModelTransferError(f"{owner}: example_inputs must be tensors")
    func = _func_name(name, type(module).__name__.lower())
    # Captured here, so the model's classes need not be importable by the
    # frontend process (a model defined in __main__ or in a function).
    try:
        program, weight_names, weights, input_names = _capture.export(
            module, inputs, dynamic_batch=bool(dynamic_batch), keep_f32=keep_f32)
    except _capture.CaptureError as e:
        if e.kind == "InvalidArgumentError":
            raise InvalidArgumentError(str(e)) from None
        raise getattr(errors, e.kind)(str(e), **e.extra) from e
    answer = worker.request({"op": "torch", "name": func, "what": owner,
                             "program": program, "weight_names": weight_names,
                             "input_names": input_names}, owner)
    answer["weights"] = {n: torch_to_host(t) for n, t in zip(weight_names, weights)}
    return _finish(answer, owner)


def import_torch_training(module, loss_fn, example_inputs, targets, *,
                          name: str | None = None) -> ImportedModel:
    """Import one training step: ``loss_fn(module(*inputs), *targets)`` and
    the gradients of every parameter.

    The function's results are ``loss`` then ``grad.<parameter>`` for each
    parameter; its arguments are the parameters, the inputs and the targets.
    ``loss_fn`` must be importable (a module-level function or an
    ``nn.Module``) and lower to pure linalg (``F.cross_entropy``'s backward
    does not: use a one-hot formulation)."""
    torch = _torch("tessel.import_torch_training")
    owner = f"training step of {type(module).__name__}"
    if not isinstance(module, torch.nn.Module):
        raise ModelTransferError(f"{owner}: import_torch_training takes a torch.nn.Module")
    func = _func_name(name, f"{type(module).__name__.lower()}_train_step")
    answer = worker.request({"op": "training", "name": func,
                             "module": _pickled((module, loss_fn), "module and loss function",
                                                owner),
                             "inputs": _pickled(_as_tuple(example_inputs), "inputs", owner),
                             "targets": _pickled(_as_tuple(targets), "targets", owner)}, owner)
    return _finish(answer, owner)


def import_onnx(path, *, name: str | None = None) -> ImportedModel:
    """Import an ONNX file. Floating-point initializers become the leading
    function arguments (``signature.weights``); the graph inputs follow."""
    p = Path(path)
    what = f"ONNX model {p}"
    if not p.exists():
        raise ModelFileError(f"{what}: no such file; check the path (export one with "
                             f"torch.onnx.export(..., dynamo=True))")
    if not p.is_file():
        raise ModelFileError(f"{what}: not a file; pass the path of an .onnx file")
    func = _func_name(name, p.stem)
    answer = worker.request({"op": "onnx", "name": func, "path": os.path.abspath(p)}, what)
    return _finish(answer, what)


def import_tensorflow(model, example_inputs, *, name: str | None = None) -> ImportedModel:
    """Import a TensorFlow model (a Keras model on the TensorFlow backend,
    a ``tf.function`` or a ``tf.Module``) through ONNX: converted here with
    ``tf2onnx`` on inputs of ``example_inputs``' shapes and dtypes."""
    from . import from_tensorflow

    what = f"TensorFlow model {model_label(model)}"
    arrays = _example_arrays(example_inputs, what)
    data = from_tensorflow.to_onnx(model, arrays, what)
    return _import_onnx_bytes(data, _func_name(name, model_label(model)), what)


def import_jax(fn, example_inputs, *, name: str | None = None) -> ImportedModel:
    """Import a ``jax.jit`` function through ONNX: converted here with
    ``jax2onnx`` on inputs of ``example_inputs``' shapes and dtypes; the
    arrays it closes over become weights."""
    from . import from_jax

    what = f"JAX function {model_label(fn)}"
    arrays = _example_arrays(example_inputs, what)
    data = from_jax.to_onnx(fn, arrays, what)
    return _import_onnx_bytes(data, _func_name(name, model_label(fn)), what)


def model_label(obj) -> str:
    """A model's name for messages and files: its ``name`` (Keras, a
    ``tf.function``), else its ``__name__``, else its class's."""
    name = getattr(obj, "name", None) or getattr(obj, "__name__", None)
    return name if isinstance(name, str) and name else type(obj).__name__.lower()


def _example_arrays(example_inputs, what: str) -> list:
    import numpy as np

    if example_inputs is None:
        raise ModelTransferError(f"{what}: example_inputs are needed (an array or a tuple "
                                 f"of arrays, one per input of the model)")
    return [np.asarray(x) for x in _as_tuple(example_inputs)]


def _outputs_named_as_torch(data: bytes) -> bytes:
    """The converters name outputs after the graph's last ops
    (``Identity_1:0``, ``jnp_tanh_out_0``); name them as a torch model's
    are, ``output`` or ``output0``, ``output1``, ... in order."""
    import onnx

    model = onnx.load_from_string(data)
    graph = model.graph
    outputs = graph.output
    names = ["output"] if len(outputs) == 1 else [f"output{i}" for i in range(len(outputs))]
    renamed = {o.name: n for o, n in zip(outputs, names)}
    direct = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    taken = {v for node in graph.node for v in [*node.input, *node.output]} | direct
    subgraphs = any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                    for node in graph.node for a in node.attribute)
    # Kept as the converter wrote them where renaming would have to reach
    # further: an output listed twice, a name already in use, an output that
    # is an input or an initializer, or bodies of control flow that may read
    # an output.
    if (len(renamed) < len(outputs) or taken & (set(names) - set(renamed))
            or direct & set(renamed) or subgraphs):
        return data
    for node in model.graph.node:
        node.output[:] = [renamed.get(v, v) for v in node.output]
        node.input[:] = [renamed.get(v, v) for v in node.input]
    for value in [*outputs, *graph.value_info]:
        value.name = renamed.get(value.name, value.name)
    return model.SerializeToString()


def _import_onnx_bytes(data: bytes, func: str, what: str) -> ImportedModel:
    """Import a serialized ONNX model through a file the frontend process
    reads, removed after."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tessel-onnx-") as directory:
        path = Path(directory) / f"{func}.onnx"
        path.write_bytes(_outputs_named_as_torch(data))
        answer = worker.request({"op": "onnx", "name": func, "path": str(path)}, what)
    return _finish(answer, what)


def export_onnx(module, example_inputs, path) -> Path:
    """Export ``module`` to ONNX with ``torch.onnx.export(..., dynamo=True)``
    in the frontend process. The file is written atomically."""
    torch = _torch("tessel.frontend.export_onnx")
    owner = f"module {type(module).__name__}"
    if not isinstance(module, torch.nn.Module):
        raise ModelTransferError(f"{owner}: export_onnx takes a torch.nn.Module")
    p = Path(path)
    if not p.parent.is_dir():
        raise ModelFileError(
            f"{owner}: cannot write {p}: the directory {p.parent} does not exist; create "
            f"it first")
    if p.is_dir():
        raise ModelFileError(f"{owner}: cannot write {p}: it is a directory; pass a file path")
    # A sibling unique to this call, so concurrent exports (threads,
    # processes) never share it; the export creates it with the usual mode.
    tmp = p.with_name(f".{p.name}.{uuid.uuid4().hex}.tmp")
    inputs = _as_tuple(example_inputs)
    request = {"op": "export_onnx", "path": str(tmp.absolute()),
               "inputs": _pickled(inputs, "example inputs", owner)}
    if _capture.is_graph_module(module):
        # A graph torch.export made (a PT2E quantized model) does not
        # pickle; the program exported from it here travels instead.
        try:
            request["program"] = _capture.exported_program_bytes(module, inputs, owner)
        except _capture.CaptureError as e:
            raise getattr(errors, e.kind)(str(e), **e.extra) from e
    else:
        request["module"] = _pickled(module, "module", owner)
    try:
        worker.request(request, owner)
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()
    return p
