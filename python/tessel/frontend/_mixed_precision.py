"""Mixed precision: chosen ATen ops of a bf16 or f16 model computed in f32.

A model in bfloat16 runs the ops torch-mlir lowers directly in bf16: GELU
as five bf16 operations, each rounded, where PyTorch's CPU kernel computes
in f32 and rounds once (softmax and layer norm already compute in f32: the
decompositions torch-mlir applies widen low-precision inputs for them).
``keep_f32`` names ATen ops (by name without overload, as in
``torch.ops.aten.gelu``) to compute in f32: in the exported graph each such
op's bf16 or f16 tensor inputs are widened to f32 (``aten._to_copy``), the
op runs on them, and its result is rounded back to the model's type. The
rest of the model is untouched. Runs in the user's process on the
``torch.export`` program, before it is saved. Needs only torch.
"""

from __future__ import annotations

NARROW = ("bfloat16", "float16")


class MixedPrecisionError(ValueError):
    """A ``keep_f32`` name the graph does not have, or an op it names that
    cannot be kept in f32; ``kind`` is the error to raise for it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _aten_name(node) -> str | None:
    packet = getattr(node.target, "_overloadpacket", None)
    return packet.__name__ if node.op == "call_function" and packet is not None else None


def compute_in_f32(program, ops, what: str) -> int:
    """Rewrites ``program`` (an ExportedProgram) in place so that every call
    of an ATen op named in ``ops`` whose result is bf16 or f16 computes in
    f32. Returns how many calls it rewrote. Raises MixedPrecisionError for
    a name no op of the graph has (listing the ones it has) and for such an
    op with more than one result."""
    import torch
    from torch.fx.node import map_arg

    graph = program.graph
    calls = [n for n in graph.nodes if _aten_name(n) in ops]
    missing = sorted(set(ops) - {_aten_name(n) for n in calls})
    if missing:
        present = sorted({name for n in graph.nodes if (name := _aten_name(n))})
        raise MixedPrecisionError(
            "InvalidArgumentError",
            f"{what}: keep_f32 names {', '.join(repr(m) for m in missing)}, which no ATen "
            f"op of the model is; its ops are: {', '.join(present)}")
    rewritten = 0
    for node in calls:
        result = node.meta.get("val")
        if not isinstance(result, torch.Tensor):
            raise MixedPrecisionError(
                "UnsupportedOpError",
                f"{what}: keep_f32: aten.{_aten_name(node)} gives {type(result).__name__}, "
                f"not one tensor; only ops of one tensor result are computed in f32")
        if str(result.dtype).removeprefix("torch.") not in NARROW:
            continue
        fake = result.fake_mode
        # Where the op is in the source, for the casts' locations too.
        where = {k: node.meta[k] for k in ("stack_trace", "nn_module_stack",
                                           "source_fn_stack", "from_node") if k in node.meta}

        def widen(arg):
            value = arg.meta.get("val")
            if not (isinstance(value, torch.Tensor)
                    and str(value.dtype).removeprefix("torch.") in NARROW):
                return arg
            with graph.inserting_before(node):
                wide = graph.call_function(torch.ops.aten._to_copy.default, (arg,),
                                           {"dtype": torch.float32})
            wide.meta = dict(where)
            with fake:
                wide.meta["val"] = value.to(torch.float32)
            return wide

        args, kwargs = map_arg(node.args, widen), map_arg(node.kwargs, widen)
        with graph.inserting_before(node):
            computed = graph.call_function(node.target, args, kwargs)
        computed.meta = dict(node.meta)
        with fake:
            computed.meta["val"] = node.target(*map_arg(args, lambda a: a.meta["val"]),
                                               **map_arg(kwargs, lambda a: a.meta["val"]))
        # The node itself becomes the rounding back, so its users, its name
        # and the program's signature stay as they are.
        node.target = torch.ops.aten._to_copy.default
        node.args, node.kwargs = (computed,), {"dtype": result.dtype}
        rewritten += 1
    program.graph_module.recompile()
    return rewritten
