"""The comparison with the golden reference: the outputs must lie within
``|tessel - reference| <= atol + rtol * |reference|`` element by element,
the rule the zoo and the end-to-end tests use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np


@dataclass(frozen=True)
class OutputCheck:
    name: str
    max_abs_error: float
    max_rel_error: float
    passed: bool
    problem: str = ""          # a shape mismatch, NaNs, ...


@dataclass(frozen=True)
class Check:
    """Simulated outputs against ``reference`` (e.g. ``PyTorch eager``)."""

    reference: str
    rtol: float
    atol: float
    outputs: tuple[OutputCheck, ...]

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outputs)

    @property
    def max_abs_error(self) -> float:
        return max((o.max_abs_error for o in self.outputs), default=0.0)

    @property
    def max_rel_error(self) -> float:
        return max((o.max_rel_error for o in self.outputs), default=0.0)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        lines = [f"{verdict}: against {self.reference}, max |error| "
                 f"{self.max_abs_error:.3g}, max relative error "
                 f"{self.max_rel_error:.3g} (rtol {self.rtol:g}, atol {self.atol:g})"]
        for o in self.outputs:
            if not o.passed:
                lines.append(f"  {o.name}: " + (o.problem or
                             f"max |error| {o.max_abs_error:.3g} is outside the tolerance"))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"reference": self.reference, "rtol": self.rtol, "atol": self.atol,
                "passed": self.passed, "max_abs_error": self.max_abs_error,
                "max_rel_error": self.max_rel_error}


def compare(outputs: Mapping[str, np.ndarray], reference: Sequence[np.ndarray],
            names: Sequence[str], *, rtol: float, atol: float,
            against: str) -> Check:
    """Compares ``outputs[names[i]]`` with ``reference[i]``."""
    if len(reference) != len(names):
        raise ValueError(f"the reference has {len(reference)} outputs, the program "
                         f"{len(names)} ({', '.join(names)})")
    return Check(against, float(rtol), float(atol), tuple(
        _one(name, outputs.get(name), np.asarray(want), rtol, atol)
        for name, want in zip(names, reference)))


def _one(name, got, want, rtol, atol) -> OutputCheck:
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
    passed = bool(np.all(err <= atol + rtol * np.abs(w)))
    problem = "" if passed or np.isfinite(err).all() else "NaN or infinite values differ"
    return OutputCheck(name, float(err.max()), float(rel.max()), passed, problem)
