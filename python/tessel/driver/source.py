"""What the driver compiles: an ``nn.Module``, a TensorFlow model or a
``jax.jit`` function with example inputs, an ONNX file or an already
imported model, each with the golden reference it is checked against
(PyTorch eager, TensorFlow, JAX, onnxruntime, the imported linalg on MLIR's
CPU JIT)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InvalidArgumentError, InvalidArgumentTypeError
from ..frontend.model import ImportedModel


@dataclass
class Source:
    """A model ready to import. ``reference(inputs)`` gives the golden
    outputs for input arrays in signature order; ``against`` names it."""

    name: str
    importer: Callable[[], ImportedModel]
    inputs: list[np.ndarray] | None
    reference: Callable[[list[np.ndarray]], list[np.ndarray]] | None
    against: str
    # The importer with ops kept in f32 (keep_f32), where the source has ATen
    # ops to keep: a PyTorch module's.
    mixed_importer: Callable[[tuple[str, ...]], ImportedModel] | None = None

    def load(self, keep_f32: tuple[str, ...] = ()) -> ImportedModel:
        """The imported model; ``keep_f32`` (ATen op names) for a PyTorch
        module only."""
        if not keep_f32:
            return self.importer()
        if self.mixed_importer is None:
            raise InvalidArgumentError(
                f"option 'keep_f32' names ATen ops, which only a PyTorch nn.Module has; "
                f"{self.name} is checked against {self.against}: import it without keep_f32")
        return self.mixed_importer(keep_f32)


def _as_list(x) -> list:
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in text) or "model"


def from_model(model: Any, example_inputs: Any = None, name: str | None = None) -> Source:
    """The source for ``model``: an ``nn.Module``, a TensorFlow model or a
    ``jax.jit`` function (``example_inputs`` required), an ONNX path, an
    ``ImportedModel`` or the path of a saved one."""
    if isinstance(model, ImportedModel):
        return _imported(model, example_inputs, name)
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        if path.is_dir() and (path / "model.mlir").is_file():
            return _imported(ImportedModel.load(path), example_inputs, name or path.name)
        if path.suffix == ".onnx":
            return _onnx(path, example_inputs, name)
        raise InvalidArgumentError(f"model {str(model)!r}: not an .onnx file nor a saved imported "
                         f"model directory (one holding model.mlir); {SUPPORTED}")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and isinstance(model, torch.nn.Module):
        return _torch(model, example_inputs, name)
    from ..frontend import api as frontend_api, from_jax, from_tensorflow
    if from_tensorflow.is_tensorflow(model):
        return _converted(model, example_inputs, name, "TensorFlow",
                          from_tensorflow.run, frontend_api.import_tensorflow)
    if from_jax.is_jax(model):
        return _converted(model, example_inputs, name, "JAX", from_jax.run,
                          frontend_api.import_jax)
    _refuse_keras_off_torch(model)
    raise InvalidArgumentTypeError(f"model is a {type(model).__name__}; {SUPPORTED}")


# What the driver takes, named in the refusal of anything else.
SUPPORTED = ("pass a torch.nn.Module (PyTorch, or Keras 3 on the torch backend), a "
             "TensorFlow model (tf.keras / Keras on the TensorFlow backend, a tf.function "
             "or a tf.Module), a jax.jit function, the path of an .onnx file or a "
             "tessel.frontend.ImportedModel")


def _refuse_keras_off_torch(model: Any) -> None:
    """A Keras 3 model is an ``nn.Module`` on Keras's torch backend and a
    TensorFlow model on its TensorFlow backend; on another one, say how to
    get it to one of those."""
    if not type(model).__module__.startswith("keras."):
        return
    keras = sys.modules.get("keras")
    backend = keras.backend.backend() if keras is not None else "unknown"
    raise InvalidArgumentTypeError(
        f"model is a Keras {type(model).__name__} on the {backend!r} backend; Tessel takes "
        f"Keras models on the 'torch' backend, where they are nn.Modules, and on the "
        f"'tensorflow' backend, through ONNX: set the environment variable "
        f"KERAS_BACKEND=torch (or tensorflow) before keras is first imported")


def _converted(model, example_inputs, name, framework: str, run, importer) -> Source:
    """A TensorFlow model or a JAX function: converted to ONNX in this
    process (``importer``), checked against the framework's own output
    (``run``)."""
    from ..frontend.api import model_label

    if example_inputs is None:
        raise InvalidArgumentError(f"{framework} model {type(model).__name__}: "
                                   f"example_inputs are needed (an array or a tuple of "
                                   f"arrays, one per input)")
    arrays = [np.asarray(x) for x in _as_list(example_inputs)]
    name = name or _name(model_label(model).lower())
    return Source(name, lambda: importer(model, arrays, name=name),
                  arrays, lambda inputs: run(model, inputs), framework)


def _torch(module, example_inputs, name) -> Source:
    import torch

    from .. import frontend
    from ..frontend.api import eval_mode

    if example_inputs is None:
        raise InvalidArgumentError(f"module {type(module).__name__}: example_inputs are needed to "
                         f"import an nn.Module (a tensor or a tuple of tensors)")
    tensors = tuple(torch.as_tensor(x) for x in _as_list(example_inputs))
    name = name or _name(type(module).__name__.lower())

    def reference(arrays):
        # The program is compiled in eval mode (the frontend imports so);
        # the golden runs the same way and leaves the caller's mode as it was.
        with eval_mode(module), torch.no_grad():
            # bfloat16 inputs travel as float32 (exact): back to the
            # example's dtype for the model.
            out = module(*[torch.from_numpy(np.asarray(a)).to(t.dtype)
                           for a, t in zip(arrays, tensors)])
        return [_torch_array(o, f"output {i} of {type(module).__name__}")
                for i, o in enumerate(_as_list(out))]

    def importer(keep_f32=()):
        return frontend.import_torch(module, tensors, name=name, keep_f32=keep_f32)

    return Source(name, importer,
                  [_torch_array(t, f"example input {i} of {type(module).__name__}")
                   for i, t in enumerate(tensors)],
                  reference, "PyTorch eager", mixed_importer=importer)


def _host_array(x, what: str) -> np.ndarray:
    """An array of ``x``: a PyTorch tensor as _torch_array makes it (bfloat16
    as float32), anything else through NumPy."""
    if type(x).__module__.startswith("torch"):
        return _torch_array(x, what)
    return np.asarray(x)


def _torch_array(tensor, what: str) -> np.ndarray:
    """``tensor`` as a NumPy array (bfloat16 widened exactly to float32); a
    dtype Tessel has no type for (the float8 types) is refused naming
    ``what`` and the dtype."""
    from ..frontend.api import torch_to_host
    try:
        return torch_to_host(tensor)
    except TypeError:
        raise InvalidArgumentError(
            f"{what} is {tensor.dtype}, which Tessel does not take: models "
            f"and inputs in float32, float16, bfloat16 or integer types are "
            f"supported; cast the model and its inputs, e.g. model.float() and x.float()"
        ) from None


def _onnx(path: Path, example_inputs, name) -> Source:
    from .. import frontend

    def reference(arrays):
        import onnxruntime as ort
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        feeds = {i.name: a for i, a in zip(sess.get_inputs(), arrays)}
        return sess.run(None, feeds)

    inputs = None if example_inputs is None else [np.asarray(x) for x in _as_list(example_inputs)]
    return Source(name or _name(path.stem), lambda: frontend.import_onnx(path, name=name),
                  inputs, reference, "onnxruntime")


def _imported(model: ImportedModel, example_inputs, name) -> Source:
    from .. import frontend

    def reference(arrays):
        return frontend.run_reference(model, *arrays)

    inputs = None if example_inputs is None else [
        _host_array(x, f"example input {i} of {model.name}")
        for i, x in enumerate(_as_list(example_inputs))]
    return Source(name or model.name, lambda: model, inputs, reference,
                  "the imported linalg (MLIR CPU JIT)")


def random_inputs(model: ImportedModel, seed: int = 0) -> list[np.ndarray]:
    """Standard normal inputs of the signature's shapes (dynamic sizes 1)."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in model.signature.inputs:
        shape = tuple(1 if d is None else d for d in spec.shape)
        if spec.dtype.startswith("float"):
            out.append(rng.standard_normal(shape).astype(spec.dtype))
        else:
            out.append(rng.integers(0, 8, shape).astype(spec.dtype))
    return out


def from_spec(spec: str) -> tuple[Source, dict]:
    """The source a ``tessel compile MODEL`` argument names, with any
    tolerance it states (``rtol``, ``atol``, ``scale_rtol``):

    - a zoo case name (``mlp``; the case's tolerance),
    - ``FILE.py`` or ``FILE.py:FUNC``: FUNC (default ``build``) returns
      ``(module, example_inputs)``; module-level ``RTOL``/``ATOL``/
      ``SCALE_RTOL`` if set,
    - an ``.onnx`` file, or a saved imported model directory."""
    path_part, func = spec, ""
    if ".py:" in spec:
        path_part, func = spec.rsplit(":", 1)
    if path_part.endswith(".py"):
        return _from_python_file(Path(path_part), func or "build")
    path = Path(spec)
    if path.exists():
        return from_model(path), {}
    from .. import zoo
    if spec in zoo.names():
        case = zoo.get(spec)
        if case.training:
            raise InvalidArgumentError(f"zoo case {spec!r} is a training step; the driver compiles "
                             f"inference models")
        module, inputs = case.build()
        rtol, atol, scale_rtol = case.tolerance(module)
        return from_model(module, inputs, spec), {"rtol": rtol, "atol": atol,
                                                  "scale_rtol": scale_rtol}
    raise InvalidArgumentError(f"model {spec!r}: no such file, and not a zoo case (known: "
                     f"{', '.join(zoo.names())}); pass a zoo name, FILE.py[:FUNC], an "
                     f".onnx file or a saved imported model directory")


def _from_python_file(path: Path, func: str) -> tuple[Source, dict]:
    import importlib
    import sys

    if not path.is_file():
        raise InvalidArgumentError(f"model {path}: no such file")
    # Imported as a module of its directory (not run as __main__), so the
    # frontend process can unpickle the classes it defines.
    directory = str(path.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    module = importlib.import_module(path.stem)
    builder = getattr(module, func, None)
    if not callable(builder):
        raise InvalidArgumentError(f"model {path}: defines no function {func}() returning "
                         f"(module, example_inputs)")
    built = builder()
    if not (isinstance(built, tuple) and len(built) == 2):
        raise InvalidArgumentError(f"model {path}: {func}() returned {type(built).__name__}; it "
                         f"should return (module, example_inputs)")
    tolerance = {k.lower(): getattr(module, k) for k in ("RTOL", "ATOL", "SCALE_RTOL")
                 if hasattr(module, k)}
    return from_model(built[0], built[1], path.stem), tolerance
