"""The comparison with the golden reference. An output passes when both
hold:

- element by element, ``|tessel - reference| <= atol + rtol * |reference|``
  (``numpy.allclose``'s rule, the one the zoo and the end-to-end tests use);
- relative to the output's scale, ``max |tessel - reference| <= scale_rtol
  * max |reference|``. An ``atol`` that dwarfs an output (random weights
  can give outputs of 1e-14) lets the first rule pass whatever the program
  computed; the second cannot be passed that way. An output whose
  reference is all zeros has no scale: the first rule alone decides.

An output stored in bfloat16 carries bf16's rounding (an 8-bit significand:
a relative error of up to 2^-8 per rounding, neighbours 2^-7 apart), which
tolerances set for float32 results cannot allow for: its tolerances are at
least ``BF16_TOLERANCE``, rtol 1.6e-2 (``torch.testing``'s for bfloat16, two
bf16 epsilons), atol 1e-2, scale_rtol 1.6e-2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import InvalidArgumentError
from ..frontend.model import BF16_TOLERANCE

# The largest error allowed, relative to an output's largest magnitude.
DEFAULT_SCALE_RTOL = 1e-3



@dataclass(frozen=True)
class OutputCheck:
    name: str
    max_abs_error: float
    max_rel_error: float
    passed: bool
    problem: str = ""          # a shape mismatch, NaNs, ...
    scale: float = 0.0         # max |reference|
    scaled_error: float = 0.0  # max_abs_error / scale (0 where scale is 0)


@dataclass(frozen=True)
class Check:
    """Simulated outputs against ``reference`` (e.g. ``PyTorch eager``)."""

    reference: str
    rtol: float
    atol: float
    outputs: tuple[OutputCheck, ...]
    scale_rtol: float = DEFAULT_SCALE_RTOL

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outputs)

    @property
    def max_abs_error(self) -> float:
        return max((o.max_abs_error for o in self.outputs), default=0.0)

    @property
    def max_rel_error(self) -> float:
        return max((o.max_rel_error for o in self.outputs), default=0.0)

    @property
    def max_scaled_error(self) -> float:
        """The largest of the outputs' max |error| / max |reference|."""
        return max((o.scaled_error for o in self.outputs), default=0.0)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        lines = [f"{verdict}: against {self.reference}, max |error| "
                 f"{self.max_abs_error:.3g}, max relative error "
                 f"{self.max_rel_error:.3g}, max |error| / max |reference| "
                 f"{self.max_scaled_error:.3g} (rtol {self.rtol:g}, atol "
                 f"{self.atol:g}, scale_rtol {self.scale_rtol:g})"]
        for o in self.outputs:
            if not o.passed:
                lines.append(f"  {o.name}: " + (o.problem or _why(o, self)))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"reference": self.reference, "rtol": self.rtol, "atol": self.atol,
                "scale_rtol": self.scale_rtol, "passed": self.passed,
                "max_abs_error": self.max_abs_error,
                "max_rel_error": self.max_rel_error,
                "max_scaled_error": self.max_scaled_error}


def _why(o: OutputCheck, check: Check) -> str:
    if o.scale and o.scaled_error > check.scale_rtol:
        return (f"max |error| {o.max_abs_error:.3g} is {o.scaled_error:.3g} of the "
                f"output's largest magnitude {o.scale:.3g} (at most "
                f"{check.scale_rtol:g})")
    return f"max |error| {o.max_abs_error:.3g} is outside the tolerance"


def compare(outputs: Mapping[str, np.ndarray], reference: Sequence[np.ndarray],
            names: Sequence[str], *, rtol: float, atol: float,
            against: str, scale_rtol: float = DEFAULT_SCALE_RTOL,
            dtypes: Sequence[str] | None = None) -> Check:
    """Compares ``outputs[names[i]]`` with ``reference[i]``; ``dtypes``
    (the signature's names, e.g. ``bfloat16``) raise a bfloat16 output's
    tolerances to ``BF16_TOLERANCE``."""
    if len(reference) != len(names):
        raise InvalidArgumentError(f"the reference has {len(reference)} outputs, the program "
                         f"{len(names)} ({', '.join(names)})")
    bf16 = [d == "bfloat16" for d in dtypes] if dtypes is not None else [False] * len(names)
    given = (rtol, atol, scale_rtol)
    widened = tuple(max(t, least) for t, least in zip(given, BF16_TOLERANCE))
    checks = tuple(_one(name, outputs.get(name), np.asarray(want),
                        *(widened if is_bf16 else given))
                   for name, want, is_bf16 in zip(names, reference, bf16))
    # The tolerances reported are the widest any output was held to.
    rtol, atol, scale_rtol = widened if any(bf16) else given
    return Check(against, float(rtol), float(atol), checks, float(scale_rtol))


def _one(name, got, want, rtol, atol, scale_rtol) -> OutputCheck:
    if got is None:
        return OutputCheck(name, np.inf, np.inf, False, "the program returned no such output")
    got = np.asarray(got)
    if got.shape != want.shape:
        return OutputCheck(name, np.inf, np.inf, False,
                           f"shape {got.shape}, the reference has {want.shape}")
    g, w = got.astype(np.float64), want.astype(np.float64)
    if g.size == 0:
        return OutputCheck(name, 0.0, 0.0, True)
    err = np.abs(g - w)
    finite = np.isfinite(g) == np.isfinite(w)
    err = np.where(np.isfinite(err), err, np.where(finite & (g == w), 0.0, np.inf))
    # Relative to the reference, where it is not below atol (near zero the
    # relative error says nothing).
    rel = err / np.maximum(np.abs(w), max(atol, np.finfo(np.float32).tiny))
    finite_w = np.abs(w[np.isfinite(w)])
    scale = float(finite_w.max()) if finite_w.size else 0.0
    max_err = float(err.max())
    scaled = max_err / scale if scale else 0.0
    passed = bool(np.all(err <= atol + rtol * np.abs(w))) and scaled <= scale_rtol
    problem = "" if passed or np.isfinite(err).all() else "NaN or infinite values differ"
    return OutputCheck(name, max_err, float(rel.max()), passed, problem, scale, scaled)
