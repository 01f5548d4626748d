"""The input contract, checked on the MLIR 22 side as soon as the text arrives.

``tessel-check-input-contract`` accepts func/linalg/tensor/arith/math and
``cf.assert``. The asserts torch-mlir emits check shapes of dynamic
dimensions at run time and compute no value, so after the check they are
removed: Tessel compiles for the shapes in the signature, and the asserts
would otherwise drag the ``cf`` dialect (and, inside ``linalg.generic``
bodies, control flow) into every later stage.
"""

from __future__ import annotations

import os
import re

from .errors import UnsupportedOpError

# torch-mlir's prefix sums (tm_tensor.scan) become linalg first, so the
# imported model is within the contract.
CHECK_PIPELINE = ("builtin.module(func.func(tessel-scans-as-reductions),"
                  "tessel-check-input-contract)")

_OP_IN_MESSAGE = re.compile(r"'([\w.]+)' is outside")


_FRAME = re.compile(r'"([^"]+)":(\d+):(\d+)')

# A boolean tensor constant in hex, as torch-mlir prints it.
_I1_HEX = re.compile(r'dense<"0x([0-9A-Fa-f]*)">(\s*:\s*tensor<((?:\d+x)*)i1>)')


def _pack_i1_constants(text: str) -> str:
    """torch-mlir's MLIR writes a boolean tensor's hex data one byte per
    element; MLIR 22 reads eight elements per byte, the lowest bit first.
    Repacks every such constant (an ONNX causal mask) so the text parses;
    a one-byte splat means the same in both."""
    import numpy as np

    def repack(match):
        digits, suffix, dims = match.group(1), match.group(2), match.group(3)
        count = int(np.prod([int(d) for d in dims.split("x") if d], dtype=np.int64))
        if len(digits) != 2 * count or count <= 1:
            return match.group(0)
        bits = np.frombuffer(bytes.fromhex(digits), dtype=np.uint8) != 0
        packed = np.packbits(bits, bitorder="little").tobytes().hex().upper()
        return f'dense<"0x{packed}">{suffix}'

    return _I1_HEX.sub(repack, text)

# Frames inside an installed torch or torch-mlir (torch-mlir records the
# whole call stack) are not the model's source line. Matched by path, since
# the compiler process imports neither; the frontend process also reports
# where its torch and torch-mlir live (``library_dirs``).
_INSTALLED_LIBRARY = re.compile(r"[/\\](?:site|dist)-packages[/\\](?:torch|torch_mlir)[/\\]")
_FRONTEND_DIRS = tuple({os.path.dirname(os.path.abspath(__file__)),
                        os.path.dirname(os.path.realpath(__file__))})


def _is_under(path: str, dirs) -> bool:
    return any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)


def _library_frame(path: str, library_dirs=()) -> bool:
    return bool(_INSTALLED_LIBRARY.search(path)) or _is_under(path, _FRONTEND_DIRS) \
        or _is_under(path, library_dirs)


def _location_text(loc, library_dirs=()) -> str:
    """The model's own source line for ``loc``: the innermost frame outside
    torch, torch-mlir and Tessel's frontend, or the location as MLIR prints
    it."""
    text = str(loc)
    frames = _FRAME.findall(text)
    user = [f for f in frames if not _library_frame(f[0], library_dirs)]
    if user:
        return "{}:{}:{}".format(*user[0])
    if frames:
        return "{}:{}:{}".format(*frames[0])
    if text.startswith("loc(") and text.endswith(")"):
        text = text[4:-1]
    return text


def parse_and_check(text: str, what: str, library_dirs=()):
    """Parse ``text`` in a fresh ``tessel.ir.Context`` (ops of unknown
    dialects parse as unregistered ops so they can be named), run the
    contract check and drop the ``cf.assert`` ops. Returns (context, module);
    raises UnsupportedOpError naming the first offending op and where it
    came from (skipping frames under ``library_dirs``)."""
    from tessel import ir
    from tessel.passmanager import PassManager

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(_pack_i1_constants(text))
        except ir.MLIRError as e:
            diags = "; ".join(f"{d.message} at {_location_text(d.location, library_dirs)}"
                              for d in e.error_diagnostics) or str(e)
            raise UnsupportedOpError(
                f"{what}: the linalg-on-tensors text does not parse in MLIR 22 ({diags}); "
                f"the model uses a construct torch-mlir emits but Tessel cannot read") from e
        try:
            PassManager.parse(CHECK_PIPELINE).run(module.operation)
        except ir.MLIRError as e:
            diags = list(e.error_diagnostics)
            first = diags[0] if diags else None
            msg = first.message if first else str(e)
            m = _OP_IN_MESSAGE.search(msg)
            op = m.group(1) if m else None
            loc = _location_text(first.location, library_dirs) if first else None
            others = sorted({m2.group(1) for d in diags[1:]
                             if (m2 := _OP_IN_MESSAGE.search(d.message))} - {op})
            more = f" (also: {', '.join(others)})" if others else ""
            raise UnsupportedOpError(
                f"{what}: op '{op}' at {loc} is outside Tessel's input contract "
                f"(func, linalg, tensor, arith, math){more}; rewrite that part of the model "
                f"with ops that lower to linalg-on-tensors (e.g. sorting, scatter and "
                f"index_put lower to tm_tensor; cross_entropy's backward needs "
                f"tm_tensor.scatter, a one-hot loss does not)",
                op=op, location=loc) from e
        _drop_asserts(module)
    return ctx, module


def _drop_asserts(module) -> int:
    asserts = []

    def visit(op):
        if op.operation.name == "cf.assert":
            asserts.append(op)
        from tessel.ir import WalkResult
        return WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in asserts:
        op.erase()
    return len(asserts)


def check_input_contract(text: str, what: str = "imported model", *,
                         library_dirs=()) -> str:
    """Check ``text`` against the input contract and return it as MLIR 22
    prints it, without ``cf.assert``. Source locations under
    ``library_dirs`` (e.g. torch's directory) are not reported as the
    model's."""
    ctx, module = parse_and_check(text, what, library_dirs)
    with ctx:
        return module.operation.get_asm(enable_debug_info=True)
