"""JAX functions through ONNX: a ``jax.jit`` function, converted with
``jax2onnx`` in the caller's process and imported as any ONNX file. Arrays
the function closes over (its parameters) become ONNX initializers, which
the import lifts to weights. The golden reference is the jitted function
itself on the same inputs.

jax2onnx traces the function with its own lowering rules patched into
``jax.numpy`` and ``jax.nn``; it converts the function under the jit
(``__wrapped__``) and JAX's caches are cleared after, so no trace made under
the patches is reused when the function next runs in JAX. Clearing is
process-wide: the caller's other jitted functions compile again on their
next call. Neither converter is safe to run from two threads at once (each
patches its framework while it runs).
"""

from __future__ import annotations

import numpy as np

from ..errors import missing_extra
from .errors import ModelTransferError, TraceError


def is_jax(obj) -> bool:
    """Whether ``obj`` is a JAX object (a jitted function)."""
    return type(obj).__module__.startswith(("jax.", "jaxlib."))


def _jax(who: str):
    try:
        import jax
        import jax2onnx  # noqa: F401
    except ModuleNotFoundError as e:
        raise missing_extra(e, who) from None
    return jax


def _wrapped(fn, what: str):
    function = getattr(fn, "__wrapped__", None)
    if not callable(function) or not hasattr(fn, "lower"):
        raise ModelTransferError(
            f"{what}: a {type(fn).__name__} is not a jax.jit function; pass the function "
            f"wrapped with jax.jit, its parameters closed over or as arguments")
    return function


def to_onnx(fn, inputs: list[np.ndarray], what: str) -> bytes:
    """The ONNX model (serialized) computing the jitted ``fn`` on inputs of
    these arrays' shapes and dtypes."""
    jax = _jax(what)
    from jax2onnx import to_onnx as convert

    function = _wrapped(fn, what)
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in inputs]
    try:
        proto = convert(function, specs, model_name="jax_function")
    except Exception as e:
        lines = [l for l in str(e).strip().splitlines() if l.strip()][:4]
        raise TraceError(f"{what}: jax2onnx cannot convert the function to ONNX "
                         f"({type(e).__name__}: {chr(10).join(lines)}); every primitive it "
                         f"calls needs a jax2onnx lowering") from e
    finally:
        jax.clear_caches()
    return proto.SerializeToString()


def run(fn, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The jitted ``fn`` on ``inputs``, its outputs flattened in JAX's
    tree order."""
    jax = _jax("JAX reference")
    outputs = fn(*inputs)
    return [np.asarray(o) for o in jax.tree_util.tree_leaves(outputs)]
