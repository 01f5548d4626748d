"""The imported model: linalg-on-tensors text, weights kept beside it, and the
signature that says which function argument is which.

Saved as a directory::

    model.mlir        linalg-on-tensors, MLIR text (never bytecode)
    weights.npz       one array per weight, keyed by its name (uncompressed)
    signature.json    format name and version, function name, arguments and
                      results with names, shapes and dtypes

Nothing here imports MLIR or torch, so a saved model loads anywhere NumPy does.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from .errors import ImportedModelFormatError

FORMAT_NAME = "tessel-imported-model"
FORMAT_VERSION = 1

MLIR_FILE = "model.mlir"
WEIGHTS_FILE = "weights.npz"
SIGNATURE_FILE = "signature.json"

# Element types the frontend hands over, by their NumPy name. NumPy has no
# bfloat16: a bfloat16 tensor travels as float32 holding its values, which
# widen exactly; the program rounds them back to bf16 without a change.
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "bool")


# The least tolerances (rtol, atol, scale_rtol) a bfloat16 output is checked
# at: bf16 keeps an 8-bit significand, so a correctly rounded result is off
# by up to 2^-8 of its value (tessel.driver.check).
BF16_TOLERANCE = (1.6e-2, 1e-2, 1.6e-2)


def host_dtype(dtype: str) -> np.dtype:
    """The NumPy type of an array of element type ``dtype`` (one of DTYPES)."""
    return np.dtype(np.float32) if dtype == "bfloat16" else np.dtype(dtype)
KINDS = ("weight", "input", "output")


@dataclass(frozen=True)
class TensorSpec:
    """One function argument or result. ``None`` in ``shape`` is a dynamic
    dimension (e.g. the batch of a ``dynamic_batch`` import)."""

    name: str
    shape: tuple[int | None, ...]
    dtype: str
    kind: str = "input"  # "weight" or "input" for arguments, "output" for results

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"tensor name must be a non-empty string, got {self.name!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"tensor {self.name!r}: dtype {self.dtype!r} is not one of {DTYPES}")
        if self.kind not in KINDS:
            raise ValueError(f"tensor {self.name!r}: kind {self.kind!r} is not one of {KINDS}")
        shape = tuple(self.shape)
        for d in shape:
            if d is not None and (not isinstance(d, int) or isinstance(d, bool) or d < 0):
                raise ValueError(f"tensor {self.name!r}: bad dimension {d!r} in shape {shape}")
        object.__setattr__(self, "shape", shape)

    def matches(self, array: np.ndarray) -> bool:
        return (array.dtype == host_dtype(self.dtype) and array.ndim == len(self.shape)
                and all(d is None or d == a for d, a in zip(self.shape, array.shape)))

    def to_json(self) -> dict:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype,
                "kind": self.kind}


@dataclass(frozen=True)
class Signature:
    """The function's arguments in order (weights first, then the model's
    inputs) and its results."""

    func_name: str
    args: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    source: str = "torch"  # "torch", "onnx" or "torch-training"

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        names = [a.name for a in self.args]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"argument names repeat: {sorted(dup)}")

    @property
    def weights(self) -> tuple[TensorSpec, ...]:
        return tuple(a for a in self.args if a.kind == "weight")

    @property
    def inputs(self) -> tuple[TensorSpec, ...]:
        return tuple(a for a in self.args if a.kind == "input")

    def to_json(self) -> dict:
        return {"format": FORMAT_NAME, "version": FORMAT_VERSION,
                "func_name": self.func_name, "source": self.source,
                "args": [a.to_json() for a in self.args],
                "outputs": [o.to_json() for o in self.outputs]}

    @classmethod
    def from_json(cls, data, where: str = "signature") -> "Signature":
        def need(obj, key, typ, ctx):
            if not isinstance(obj, dict) or key not in obj:
                raise ImportedModelFormatError(
                    f"{where}: field '{ctx}{key}' is missing; re-save the model with "
                    f"ImportedModel.save or re-import it")
            value = obj[key]
            # bool is an int in Python, never in the format.
            if not isinstance(value, typ) or (isinstance(value, bool) and typ is not bool):
                raise ImportedModelFormatError(
                    f"{where}: field '{ctx}{key}' should be {typ.__name__}, got "
                    f"{type(value).__name__}")
            return value

        fmt = need(data, "format", str, "")
        if fmt != FORMAT_NAME:
            raise ImportedModelFormatError(
                f"{where}: field 'format' is {fmt!r}, expected {FORMAT_NAME!r}; this is "
                f"not a Tessel imported model")
        version = need(data, "version", int, "")
        if version != FORMAT_VERSION:
            raise ImportedModelFormatError(
                f"{where}: field 'version' is {version}, this Tessel reads version "
                f"{FORMAT_VERSION}; re-import the model with this version of Tessel")

        def specs(key, default_kind):
            out = []
            for i, item in enumerate(need(data, key, list, "")):
                ctx = f"{key}[{i}]."
                name = need(item, "name", str, ctx)
                shape = need(item, "shape", list, ctx)
                dtype = need(item, "dtype", str, ctx)
                kind = item.get("kind", default_kind) if isinstance(item, dict) else default_kind
                try:
                    out.append(TensorSpec(name, tuple(shape), dtype, kind))
                except ValueError as e:
                    raise ImportedModelFormatError(f"{where}: field '{ctx[:-1]}': {e}") from e
            return out

        try:
            return cls(func_name=need(data, "func_name", str, ""),
                       args=specs("args", "input"), outputs=specs("outputs", "output"),
                       source=need(data, "source", str, ""))
        except ValueError as e:
            raise ImportedModelFormatError(f"{where}: {e}") from e


def weights_problem(signature: Signature, weights: Mapping,
                    described_by: str = "the signature") -> str | None:
    """What is wrong with ``weights`` for ``signature`` (a weight missing,
    of the wrong dtype or shape, or not an argument), or None.
    ``described_by`` names where the signature came from in the message."""
    for w in signature.weights:
        if w.name not in weights:
            return f"weight {w.name!r}, an argument in {described_by}, is missing"
        a = weights[w.name]
        if not isinstance(a, np.ndarray):
            return (f"weight {w.name!r} is a {type(a).__name__}, not a NumPy array "
                    f"({w.dtype}{list(w.shape)})")
        if not w.matches(a):
            return (f"weight {w.name!r} is {a.dtype}{list(a.shape)}, {described_by} says "
                    f"{w.dtype}{list(w.shape)}")
    extra = sorted(set(weights) - {w.name for w in signature.weights})
    if extra:
        return f"arrays {extra[:5]} are not weights in {described_by}"
    return None


@dataclass(frozen=True)
class ImportedModel:
    """A model in Tessel's input form. ``mlir`` holds one ``func.func`` named
    ``signature.func_name`` whose arguments are the weights (named in
    ``weights``) followed by the model's inputs."""

    mlir: str
    weights: Mapping[str, np.ndarray] = field(repr=False)
    signature: Signature

    def __post_init__(self):
        problem = weights_problem(self.signature, self.weights)
        if problem:
            raise ValueError(problem)

    @property
    def name(self) -> str:
        return self.signature.func_name

    def weight_args(self) -> list[np.ndarray]:
        """The weight arrays in function-argument order."""
        return [self.weights[w.name] for w in self.signature.weights]

    def save(self, directory, *, overwrite: bool = False) -> Path:
        """Write the model to ``directory`` atomically: everything goes to a
        temporary sibling first and is renamed into place, so a failure leaves
        nothing behind."""
        target = Path(directory)
        if target.exists() and not overwrite:
            raise FileExistsError(f"{target} exists; pass overwrite=True to replace it")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            (tmp / MLIR_FILE).write_text(self.mlir)
            # np.savez keys are file names inside the zip: any string works.
            with open(tmp / WEIGHTS_FILE, "wb") as f:
                np.savez(f, **{k: np.asarray(v) for k, v in self.weights.items()})
            (tmp / SIGNATURE_FILE).write_text(json.dumps(self.signature.to_json(), indent=1))
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
                os.rename(target, old / "m")
                os.rename(tmp, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def load(cls, directory) -> "ImportedModel":
        """Read a directory written by ``save``, checking every file and field."""
        d = Path(directory)
        if not d.is_dir():
            raise ImportedModelFormatError(
                f"{d}: no such directory; save an imported model there with "
                f"ImportedModel.save first")
        paths = {n: d / n for n in (MLIR_FILE, WEIGHTS_FILE, SIGNATURE_FILE)}
        for name, p in paths.items():
            if not p.is_file():
                raise ImportedModelFormatError(
                    f"{p}: file missing from the saved model; re-save it with "
                    f"ImportedModel.save")
        try:
            data = json.loads(paths[SIGNATURE_FILE].read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ImportedModelFormatError(f"{paths[SIGNATURE_FILE]}: not valid JSON ({e})") from e
        sig = Signature.from_json(data, where=str(paths[SIGNATURE_FILE]))
        mlir = paths[MLIR_FILE].read_text()
        if f"@{sig.func_name}(" not in mlir:
            raise ImportedModelFormatError(
                f"{paths[MLIR_FILE]}: has no function @{sig.func_name}, which "
                f"{SIGNATURE_FILE} field 'func_name' names")
        try:
            with np.load(paths[WEIGHTS_FILE], allow_pickle=False) as z:
                weights = {k: z[k] for k in z.files}
        except Exception as e:
            raise ImportedModelFormatError(
                f"{paths[WEIGHTS_FILE]}: cannot read the weights ({e})") from e
        problem = weights_problem(sig, weights, SIGNATURE_FILE)
        if problem:
            raise ImportedModelFormatError(f"{paths[WEIGHTS_FILE]}: {problem}")
        return cls(mlir=mlir, weights=weights, signature=sig)
