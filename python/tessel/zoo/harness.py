"""Running a zoo case: import it, compute the golden reference (PyTorch eager
or onnxruntime) and, optionally, the reference execution of the imported
linalg with MLIR 22's CPU JIT, and compare."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import VARIANTS, XFAIL, get


@dataclass
class CaseResult:
    name: str
    variant: str
    model: object  # ImportedModel
    golden: list  # reference outputs, in signature order
    jit: list | None = None  # JIT outputs, when run
    import_s: float = 0.0
    jit_s: float = 0.0
    # (rtol, atol, scale_rtol): the case's tolerance for the module built.
    tolerance: tuple = (1e-5, 1e-5, 1e-3)
    notes: dict = field(default_factory=dict)

    def mismatches(self, rtol: float, atol: float, scale_rtol: float = 1e-3) -> list[str]:
        """One line per output outside |jit - golden| <= atol + rtol*|golden|
        or whose max |jit - golden| exceeds scale_rtol * max |golden| (the
        driver's check, tessel.driver.check)."""
        if self.jit is None:
            return []
        bad = []
        if len(self.jit) != len(self.golden):
            return [f"{len(self.jit)} outputs, the reference has {len(self.golden)}"]
        for spec, got, want in zip(self.model.signature.outputs, self.jit, self.golden):
            want = np.asarray(want)
            if got.shape != want.shape:
                bad.append(f"{spec.name}: shape {got.shape}, reference {want.shape}")
                continue
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            limit = atol + rtol * np.abs(want.astype(np.float64))
            if not np.all(err <= limit):
                bad.append(f"{spec.name}: max |error| {err.max():.3g} exceeds "
                           f"atol {atol} + rtol {rtol} (at {np.unravel_index(np.argmax(err - limit), err.shape)})")
                continue
            scale = float(np.abs(want.astype(np.float64)).max()) if want.size else 0.0
            if scale and err.max() > scale_rtol * scale:
                bad.append(f"{spec.name}: max |error| {err.max():.3g} is more than "
                           f"{scale_rtol} of the output's largest magnitude {scale:.3g}")
        return bad

    def max_error(self) -> float:
        if self.jit is None:
            return float("nan")
        return max(float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
                   for g, w in zip(self.jit, self.golden))


def _torch_golden(case, built):
    import torch
    if case.training:
        module, loss_fn, inputs, targets = built
        module.train()
        module.zero_grad()
        loss = loss_fn(module(*inputs), *targets)
        loss.backward()
        grads = {f"grad.{n}": p.grad for n, p in module.named_parameters()}
        return {"loss": loss.detach(), **grads}
    from ..frontend.api import eval_mode

    module, inputs = built
    with eval_mode(module), torch.no_grad():
        out = module(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return outs


def run_case(name: str, variant: str = "torch", *, jit: bool = True,
             workdir: str | Path | None = None) -> CaseResult:
    """Import zoo case ``name`` through ``variant`` and compute its golden
    outputs; with ``jit`` also execute the imported linalg."""
    import tessel.frontend as fe
    from tessel.frontend.api import torch_to_host

    case = get(name)
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
    built = case.build()
    with tempfile.TemporaryDirectory(prefix=f"tessel-zoo-{name}-") as tmp:
        work = Path(workdir) if workdir is not None else Path(tmp)
        if variant == "torch":
            t0 = time.perf_counter()
            if case.training:
                module, loss_fn, inputs, targets = built
                model = fe.import_torch_training(module, loss_fn, inputs, targets, name=name)
                args = [torch_to_host(t) for t in inputs + targets]
            else:
                module, inputs = built
                model = fe.import_torch(module, inputs, name=name)
                args = [torch_to_host(t) for t in inputs]
            import_s = time.perf_counter() - t0
            golden = _torch_golden(case, built)
            if isinstance(golden, dict):
                golden = [torch_to_host(golden[o.name]) for o in model.signature.outputs]
            else:
                golden = [torch_to_host(g) for g in golden]
        else:
            if case.training:
                raise fe.FrontendError(
                    f"zoo case {name}: no ONNX variant: {XFAIL.get((name, variant), '')}")
            module, inputs = built
            path = work / f"{name}.onnx"
            fe.export_onnx(module, inputs, path)
            t0 = time.perf_counter()
            model = fe.import_onnx(path, name=name)
            import_s = time.perf_counter() - t0
            import onnxruntime as ort
            sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            feeds = {i.name: t.numpy() for i, t in zip(sess.get_inputs(), inputs)}
            golden = sess.run(None, feeds)
            args = [t.numpy() for t in inputs]
    result = CaseResult(name, variant, model, golden, import_s=import_s,
                        tolerance=case.tolerance(built[0]))
    if jit:
        t0 = time.perf_counter()
        result.jit = fe.run_reference(model, *args)
        result.jit_s = time.perf_counter() - t0
    return result
