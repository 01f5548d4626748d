"""Capturing an ``nn.Module`` as a graph with ``torch.export``, in the
user's process: the exported program travels to the frontend process as
bytes (``torch.export.save``), so the model's classes need not be importable
there (a model defined in a script's ``__main__``, a notebook cell or a
function works). Needs only torch.
"""

from __future__ import annotations

import inspect
import io


class CaptureError(Exception):
    """``kind`` names the FrontendError subclass to raise."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _first_lines(text: str, n: int) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[:n])


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


def export(model, inputs: tuple, *, dynamic_batch: bool = False):
    """``(program bytes, weight names, weight tensors, input names)`` of
    ``model`` (in eval mode) on ``inputs``: parameters and buffers become the
    program's leading arguments, the inputs follow."""
    import torch

    what = f"module {type(model).__name__}"
    model.eval()
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
    buffer = io.BytesIO()
    try:
        torch.export.save(program, buffer)
    except Exception as e:
        raise CaptureError("ModelTransferError",
                           f"{what}: the exported program cannot be saved for the "
                           f"frontend process ({type(e).__name__}: {e})") from e
    return (buffer.getvalue(), names, weights,
            input_names(model, len(inputs)))
