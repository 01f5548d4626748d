"""TensorFlow models through ONNX: a Keras model on the TensorFlow backend
(``tf.keras``), a ``tf.function`` or a ``tf.Module`` with ``__call__``,
converted with ``tf2onnx`` in the caller's process (where the model lives)
and imported as any ONNX file. The golden reference is TensorFlow itself
on the same inputs: the model called eagerly, a ``tf.function`` as the graph
it is.

The conversion sets the ``tf2onnx`` logger to errors only, for the
process.
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import missing_extra
from .errors import TraceError

# ONNX opset of the conversion: the newest tf2onnx 1.17 writes every op in,
# and one torch-mlir's ONNX importer reads.
OPSET = 17


def is_tensorflow(obj) -> bool:
    """Whether ``obj`` is a TensorFlow object (a Keras model on the
    TensorFlow backend derives from TensorFlow's trackables)."""
    return any(c.__module__.startswith("tensorflow.") for c in type(obj).__mro__)


def _tf(who: str):
    try:
        import tensorflow as tf
        import tf2onnx  # noqa: F401
    except ModuleNotFoundError as e:
        raise missing_extra(e, who) from None
    return tf


def _is_keras(obj) -> bool:
    # Keras 3, or Keras 2 from the tf_keras package.
    return type(obj).__module__.startswith(("keras.", "tf_keras."))


def _call(model, xs):
    """``model`` on the tensors ``xs``: a Keras model in inference mode, its
    inputs as one tensor or a list."""
    if _is_keras(model):
        return model(xs[0] if len(xs) == 1 else list(xs), training=False)
    return model(*xs)


def _function(model, tf):
    """A ``tf.function`` computing ``model`` in inference mode."""
    if isinstance(model, tf.types.experimental.PolymorphicFunction):
        return model
    return tf.function(lambda *xs: _call(model, xs))


def to_onnx(model, inputs: list[np.ndarray], what: str) -> bytes:
    """The ONNX model (serialized) computing ``model`` on inputs of these
    arrays' shapes and dtypes; the inputs are named ``input0``, ...."""
    tf = _tf(what)
    import tf2onnx

    logging.getLogger("tf2onnx").setLevel(logging.ERROR)
    spec = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype), name=f"input{i}")
            for i, x in enumerate(inputs)]
    try:
        proto, _ = tf2onnx.convert.from_function(_function(model, tf), input_signature=spec,
                                                 opset=OPSET)
    except Exception as e:
        lines = [l for l in str(e).strip().splitlines() if l.strip()][:4]
        raise TraceError(f"{what}: tf2onnx cannot convert the model to ONNX "
                         f"({type(e).__name__}: {chr(10).join(lines)}); the model must run "
                         f"as a tf.function on inputs of the example shapes") from e
    return proto.SerializeToString()


def run(model, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """``model`` on ``inputs`` in TensorFlow (eagerly, or as the graph a
    ``tf.function`` is), its outputs flattened in TensorFlow's order
    (``tf.nest.flatten``)."""
    tf = _tf("TensorFlow reference")
    outputs = _call(model, [tf.constant(x) for x in inputs])
    return [np.asarray(o) for o in tf.nest.flatten(outputs)]
