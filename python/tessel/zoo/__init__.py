"""The model zoo: end-to-end cases in the torch-mlir e2e style.

Each case is a function registered with ``@register(name, ...)`` that returns
its (seeded, deterministic) module and example inputs; training cases also
return a loss function and targets. Every case runs through two variants:
``"torch"`` (``import_torch``, PyTorch eager as the reference) and ``"onnx"``
(``torch.onnx.export(dynamo=True)`` then ``import_onnx``, onnxruntime as the
reference). ``XFAIL`` lists the (case, variant) pairs known not to work, each
with its reason. A case's module may be a PT2E quantized graph (the
``_int8`` cases), whose tolerance is one step of its output's quantization
(``Case.tolerance``).

Adding a case: write the module in ``models.py`` (module level, so it
pickles), add a builder below, and run ``pytest tests/frontend``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import UnknownNameError

VARIANTS = ("torch", "onnx")


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable
    rtol: float
    atol: float
    training: bool = False
    # Checks that take long on a small CPU: ("jit", variant) pairs.
    slow: frozenset = field(default_factory=frozenset)
    description: str = ""
    # The largest error allowed relative to an output's largest magnitude.
    scale_rtol: float = 1e-3
    # An int8 model: its outputs may be one step of their quantization off
    # the reference, whatever rtol, atol and scale_rtol say (tolerance()).
    quantized: bool = False

    def tolerance(self, module) -> tuple[float, float, float]:
        """``(rtol, atol, scale_rtol)`` for ``module`` as this case built
        it. A quantized case's outputs take values one step of their
        quantization apart: ``atol`` is that step (read from the model, to
        f32's rounding of it), and nothing relative is asked besides."""
        if not self.quantized:
            return self.rtol, self.atol, self.scale_rtol
        from .cases import output_step
        return 0.0, output_step(module) * (1 + 1e-6), 1.0


CASES: dict[str, Case] = {}

# (case, variant) -> reason. Tests expect these to fail.
XFAIL: dict[tuple[str, str], str] = {
    ("mlp_train_step", "onnx"):
        "ONNX holds inference graphs; torch.onnx.export has no joint "
        "forward-backward export, so training steps come only from PyTorch",
    **{(name, "onnx"): "onnxruntime's CPU provider has no bfloat16 kernels "
       "(Gemm, MatMul, Conv): the ONNX model has no reference to be checked against"
       for name in ("mlp_bf16", "small_cnn_bf16", "gpt2_block_small_bf16")},
}


def register(name: str, *, rtol: float = 1e-5, atol: float = 1e-5, training: bool = False,
             slow=(), description: str = "", scale_rtol: float = 1e-3,
             quantized: bool = False):
    """Register a case builder under ``name``."""
    def wrap(fn):
        if name in CASES:
            raise ValueError(f"zoo case {name!r} is registered twice")
        CASES[name] = Case(name, fn, rtol, atol, training, frozenset(slow),
                           description or (fn.__doc__ or "").strip(), scale_rtol,
                           quantized)
        return fn
    return wrap


def get(name: str) -> Case:
    try:
        return CASES[name]
    except KeyError:
        raise UnknownNameError(f"no zoo case {name!r}; known: "
                               f"{', '.join(CASES)}") from None


def names() -> list[str]:
    return list(CASES)


from . import cases  # noqa: E402,F401  (registers the cases)
from .harness import CaseResult, run_case  # noqa: E402,F401
