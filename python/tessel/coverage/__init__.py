"""The op-coverage registry: which PyTorch ops and ``nn`` modules Tessel
compiles, case by case, in the torch-mlir e2e style.

Each case is one op or module (``cases.py``) with its example inputs and
tolerance. ``run(case)`` imports it (``tessel.frontend.import_torch``, or
for an ``onnx`` case its ONNX export through ``import_onnx``), compiles it for ``tessel-4x4`` with tessel-default-mapping, simulates it
and compares the outputs with PyTorch eager (``tessel.driver.check``:
element by element at the case's tolerance, and within ``scale_rtol`` of
the output's largest magnitude). ``XFAIL`` names the cases known to fail,
each with why; ``tests/coverage`` runs every case (an unexpected pass
fails too, so the set stays true) and ``docs/coverage.md`` is generated
from the registry::

    python -m tessel.coverage --markdown docs/coverage.md   # the table
    python -m tessel.coverage --run [NAME ...]              # run cases

Adding a case: add it to ``cases.py`` (modules and functions at module
level, so that the frontend process can unpickle them) and regenerate the
table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import UnknownNameError

ARCH = "tessel-4x4"


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    build: Callable[[], tuple]   # () -> (module, example inputs)
    rtol: float = 1e-5
    atol: float = 1e-5
    scale_rtol: float = 1e-3
    description: str = ""
    onnx: bool = False           # imported from its ONNX export
    # The exporter: torch.export's ("dynamo"), or the TorchScript one for a
    # model the first cannot export.
    onnx_exporter: str = "dynamo"


CASES: dict[str, Case] = {}

# Case name -> why it fails today (the first line of the error it gives,
# and what is missing).
XFAIL: dict[str, str] = {}


def register(name: str, group: str, build: Callable[[], tuple], *,
             rtol: float = 1e-5, atol: float = 1e-5, scale_rtol: float = 1e-3,
             description: str = "", xfail: str | None = None,
             onnx: bool = False, onnx_exporter: str = "dynamo") -> None:
    if name in CASES:
        raise ValueError(f"coverage case {name!r} is registered twice")
    if onnx_exporter not in ("dynamo", "torchscript"):
        raise ValueError(f"coverage case {name!r}: onnx_exporter must be 'dynamo' "
                         f"or 'torchscript', got {onnx_exporter!r}")
    CASES[name] = Case(name, group, build, rtol, atol, scale_rtol, description,
                       onnx, onnx_exporter)
    if xfail:
        XFAIL[name] = xfail


def names() -> list[str]:
    from . import cases  # noqa: F401  (registers the cases)
    return list(CASES)


def get(name: str) -> Case:
    names()
    try:
        return CASES[name]
    except KeyError:
        raise UnknownNameError(f"no coverage case {name!r}; known: "
                               f"{', '.join(CASES)}") from None


@dataclass
class Outcome:
    name: str
    passed: bool
    message: str = ""
    max_scaled_error: float = float("nan")


def first_error_line(error: BaseException) -> str:
    """What failed: the op and its reason for a lowering failure (without
    the location, which differs from run to run), else the error's first
    line."""
    from ..compiler import diagnostics

    failure = diagnostics.parse(str(error))
    if failure:
        return failure.message[:240]
    lines = [l.strip() for l in str(error).splitlines() if l.strip()]
    return f"{type(error).__name__}: {lines[0][:240]}" if lines else type(error).__name__


def run(case: Case, arch: str = ARCH) -> Outcome:
    """Import, compile, simulate and check one case, and run it on the CPU
    emulator, which must give the simulator's bits."""
    import tempfile
    from pathlib import Path

    import numpy as np
    import torch

    from ..driver.pipeline import compile_imported
    from ..driver.check import compare
    from ..frontend import import_onnx, import_torch
    from ..runtime.emulator import emulate
    from ..runtime.simulator import simulate

    torch.manual_seed(0)
    try:
        module, inputs = case.build()
        module.eval()
        if case.onnx:
            # Exported here, as a user would: the model's classes need not
            # be importable in the frontend's process.
            with tempfile.TemporaryDirectory() as work:
                path = Path(work) / f"{case.name}.onnx"
                torch.onnx.export(module, inputs, path, verbose=False,
                                  dynamo=case.onnx_exporter == "dynamo")
                model = import_onnx(path, name=case.name)
        else:
            model = import_torch(module, inputs, name=case.name)
        program = compile_imported(model, arch)
        feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, inputs)
                 if spec.name in program.inputs}
        outputs = simulate(program, feeds).outputs
        emulated = emulate(program, feeds, device="cpu").outputs
    except Exception as e:  # every failure is an outcome, named by its error
        return Outcome(case.name, False, first_error_line(e))
    differing = [name for name in outputs
                 if outputs[name].tobytes() != emulated[name].tobytes()]
    if differing:
        return Outcome(case.name, False, "the CPU emulator's outputs differ from "
                       f"the simulator's: {', '.join(differing)}")
    with torch.no_grad():
        golden = module(*inputs)
    golden = list(golden) if isinstance(golden, (tuple, list)) else [golden]
    names = [o.name for o in model.signature.outputs]
    check = compare(outputs, [np.asarray(g.detach()) for g in golden], names,
                    rtol=case.rtol, atol=case.atol, scale_rtol=case.scale_rtol,
                    against="PyTorch eager")
    return Outcome(case.name, check.passed, "" if check.passed else str(check),
                   check.max_scaled_error)


def markdown() -> str:
    """docs/coverage.md's table, from the registry and ``XFAIL``."""
    names()
    groups: dict[str, list[Case]] = {}
    for case in CASES.values():
        groups.setdefault(case.group, []).append(case)
    passing = sum(name not in XFAIL for name in CASES)
    lines = [f"{passing} of {len(CASES)} cases pass "
             f"({100 * passing / len(CASES):.0f} %), on `{ARCH}` with the default "
             "mapping, against PyTorch eager.", ""]
    for group, cases in groups.items():
        lines += [f"### {group}", "", "| case | | what | why it fails |",
                  "| --- | --- | --- | --- |"]
        for case in cases:
            why = XFAIL.get(case.name, "")
            lines.append(f"| `{case.name}` | {'✗' if why else '✓'} | "
                         f"{case.description} | {why.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)
