"""Capturing an ``nn.Module`` as a graph with ``torch.export``, in the
user's process: the exported program travels to the frontend process as
bytes (``torch.export.save``), so the model's classes need not be importable
there (a model defined in a script's ``__main__``, a notebook cell or a
function works). Needs only torch.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re

from . import _pt2e
from ._mixed_precision import MixedPrecisionError, compute_in_f32


class CaptureError(Exception):
    """``kind`` names the FrontendError subclass to raise, ``extra`` its
    keyword arguments (an UnsupportedOpError's op and location)."""

    def __init__(self, kind: str, message: str, **extra):
        super().__init__(message)
        self.kind = kind
        self.extra = extra


def _first_lines(text: str, n: int) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[:n])


def torch_to_host(tensor):
    """``tensor`` as the NumPy array the signature's dtype names: bfloat16,
    which NumPy has no type for, widened exactly to float32."""
    import torch
    t = tensor.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy().copy()


def input_names(model, n: int) -> list[str]:
    """The names of ``model.forward``'s first ``n`` positional parameters,
    or ``input0`` .."""
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params[:n]]
    except (TypeError, ValueError):
        names = []
    if len(names) != n:
        names = [f"input{i}" for i in range(n)]
    return names


def _check_input_count(model, count: int, what: str) -> None:
    """torch.export reports a wrong number of example inputs as an
    untraceable forward(); say what forward() takes instead."""
    try:
        params = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                  p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) <= count <= len(positional):
        return
    takes = (f"{len(required)}" if len(required) == len(positional)
             else f"{len(required)} to {len(positional)}")
    names = ", ".join(p.name for p in positional)
    raise CaptureError(
        "TraceError",
        f"{what}: forward() takes {takes} input{'s' if len(positional) != 1 else ''} "
        f"({names}), {count} example input{'s were' if count != 1 else ' was'} given; "
        f"pass one tensor per input of forward(), as a tuple")


def source_line(node) -> str | None:
    """``file:line`` of the model's own code that made the FX ``node``:
    the innermost frame of its stack outside torch and Tessel's frontend."""
    from .contract import _library_frame

    frames = re.findall(r'File "([^"]+)", line (\d+)', node.meta.get("stack_trace") or "")
    user = [f for f in frames if not _library_frame(f[0])]
    if user or frames:
        return "{}:{}".format(*(user or frames)[-1])
    return None


def _check_static_shapes(program, what: str) -> None:
    """An op whose output's shape depends on the input's values (nonzero,
    masked_select, unique, indexing by a boolean mask) has no static
    shape, and Tessel's programs have only static ones. torch.export marks
    such sizes with unbacked symbols; the first op that makes one is the
    model's to change."""
    import torch
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    for node in program.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        val = node.meta.get("val")
        tensors = [v for v in (val if isinstance(val, (tuple, list)) else [val])
                   if isinstance(v, torch.Tensor)]
        if not any(free_unbacked_symbols(list(t.shape)) for t in tensors):
            continue
        op = str(node.target._overloadpacket)
        where = source_line(node)
        raise CaptureError(
            "UnsupportedOpError",
            f"{what}: op '{op}'{f' at {where}' if where else ''} returns a tensor whose "
            f"shape depends on the input's values (as nonzero, masked_select, unique and "
            f"indexing by a boolean mask do), which a program for Tessel's static shapes "
            f"cannot express; compute a result of fixed shape instead, e.g. multiply by "
            f"the mask (x * (x > 0)) or use torch.where(mask, x, 0), and reduce over the "
            f"whole tensor", op=op, location=where)


def set_eval(model) -> bool:
    """Puts ``model`` in eval mode; False where it has no mode to set: a
    graph that torch.export made (``ExportedProgram.module()``, a PT2E
    quantized model) has its mode fixed at export and refuses ``eval()``."""
    try:
        model.eval()
    except NotImplementedError:
        return False
    return True


def is_graph_module(model) -> bool:
    """Whether ``model`` is a torch.fx graph (torch.export's ``module()``,
    a PT2E quantized model): its code is generated, and does not pickle."""
    import torch

    return isinstance(model, torch.fx.GraphModule)


def exported_program_bytes(model, inputs: tuple, owner: str) -> bytes:
    """``model`` on ``inputs`` as torch.export's serialized program, which
    another process loads with ``torch.export.load``."""
    import torch

    try:
        program = torch.export.export(model, inputs)
        buffer = io.BytesIO()
        torch.export.save(program, buffer)
    except Exception as e:
        raise CaptureError("TraceError", f"{owner}: torch.export failed: "
                           f"{type(e).__name__}: {_first_lines(str(e), 4)}") from e
    return buffer.getvalue()


@contextlib.contextmanager
def eval_mode(model):
    """``model`` in eval mode (set_eval) for the block, its mode restored
    after."""
    was_training = model.training
    settable = set_eval(model)
    try:
        yield model
    finally:
        if settable:
            model.train(was_training)


def _custom_op_calls(program) -> dict:
    """The custom operators ``program`` calls, each with its first call;
    PT2E's quantization ops are Tessel's own to lower (_pt2e)."""
    from .custom_ops import is_custom

    found = {}
    for node in program.graph.nodes:
        if (node.op == "call_function" and is_custom(node.target)
                and not _pt2e.is_pt2e_op(node.target)):
            found.setdefault(node.target, node)
    return found


def _refuse_undecomposed(found: dict, what: str) -> None:
    """An ``UnsupportedOpError`` for the first custom op left, saying how
    to register its decomposition."""
    if not found:
        return
    op, node = next(iter(found.items()))
    where = source_line(node)
    raise CaptureError(
        "UnsupportedOpError",
        f"{what}: custom op '{op._schema.name}'{f' at {where}' if where else ''} has "
        f"no lowering for Tessel; register a decomposition into PyTorch ops with "
        f"@tessel.register_decomposition(torch.ops.{op._schema.name.replace('::', '.')}) "
        f"on a function taking the op's arguments (docs/custom-ops.md)",
        op=op._schema.name, location=where)


def _decompose_custom_ops(program, what: str):
    """``program`` with every custom operator (``torch.library``) replaced by
    its registered decomposition (``tessel.register_decomposition``), those
    that decompositions call included: the frontend process, where the ops
    are not defined, gets ATen only."""
    from .custom_ops import decompositions

    registered = decompositions()
    found = _custom_op_calls(program)
    _refuse_undecomposed({op: n for op, n in found.items() if op not in registered}, what)
    try:
        quantization = _pt2e.decompositions(program, source_line)
    except _pt2e.PT2EError as e:
        raise CaptureError("UnsupportedOpError", f"{what}: {e}") from None
    if not found and not quantization:
        return program
    try:
        program = program.run_decompositions({**quantization, **registered})
    except Exception as e:
        names = ", ".join(sorted(op._schema.name for op in {**found, **quantization}))
        raise CaptureError("TraceError",
                           f"{what}: the decomposition of custom op {names} does not trace: "
                           f"{_first_lines(str(e), 4)}") from e
    # A decomposition may call a custom op that has none.
    _refuse_undecomposed(_custom_op_calls(program), what)
    return program


def export(model, inputs: tuple, *, dynamic_batch: bool = False, keep_f32=()):
    """``(program bytes, weight names, weight tensors, input names)`` of
    ``model`` (in eval mode) on ``inputs``: parameters and buffers become the
    program's leading arguments, the inputs follow. The ATen ops named in
    ``keep_f32`` compute in f32 (_mixed_precision)."""
    import torch

    what = f"module {type(model).__name__}"
    _check_input_count(model, len(inputs), what)
    set_eval(model)
    named = list(model.named_parameters()) + list(model.named_buffers())
    names = [n for n, _ in named]

    class ParamsAsArgs(torch.nn.Module):
        """forward(*weights, *inputs): parameters and buffers become
        function arguments instead of constants inlined in the IR. The model
        is held outside the module's state: torch.export would otherwise
        lift its buffers as program state too, and torch-mlir finds no
        state for a non-persistent one (``register_buffer(...,
        persistent=False)``: position ids, rotary tables)."""

        def __init__(self, inner):
            super().__init__()
            object.__setattr__(self, "inner", inner)

        def forward(self, *args):
            ws, xs = args[:len(names)], args[len(names):]
            return torch.func.functional_call(self.inner, dict(zip(names, ws)), xs)

    weights = tuple(t.detach() for _, t in named)
    dynamic = None
    if dynamic_batch:
        batch = torch.export.Dim("batch", min=1, max=4096)
        dynamic = {"args": tuple([None] * len(weights) + [{0: batch}] * len(inputs))}
    try:
        program = torch.export.export(ParamsAsArgs(model), weights + inputs,
                                      dynamic_shapes=dynamic, strict=False)
    except Exception as e:
        text = str(e)
        data_dep = any(k in text for k in ("data-dependent", "data dependent",
                                          "GuardOnDataDependent", "Could not guard on"))
        hint = ("the model branches on tensor values (data-dependent control flow); "
                "rewrite the branch with torch.where or torch.cond, or move it out of "
                "forward()" if data_dep else
                "make forward() traceable by torch.export (see the torch.export "
                "documentation on unsupported Python constructs)")
        raise CaptureError("TraceError",
                           f"{what}: torch.export cannot trace the model: {hint}\n"
                           f"{_first_lines(text, 4)}") from e
    weight_inputs = program.graph_signature.user_inputs[:len(weights)]
    _pt2e.drop_zero_zero_points(program, dict(zip(weight_inputs, weights)))
    program = _decompose_custom_ops(program, what)
    if keep_f32:
        try:
            compute_in_f32(program, frozenset(keep_f32), what)
        except MixedPrecisionError as e:
            raise CaptureError(e.kind, str(e)) from None
    _check_static_shapes(program, what)
    buffer = io.BytesIO()
    try:
        torch.export.save(program, buffer)
    except Exception as e:
        raise CaptureError("ModelTransferError",
                           f"{what}: the exported program cannot be saved for the "
                           f"frontend process ({type(e).__name__}: {e})") from e
    return (buffer.getvalue(), names, weights,
            input_names(model, len(inputs)))
