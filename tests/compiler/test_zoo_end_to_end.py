"""Every zoo model, compiled for tessel-4x4 and tessel-16x16 and simulated,
against PyTorch eager at the case's tolerance (inference models in eval
mode; the training step's loss and every gradient).

The large models run on tessel-4x4 every time (20 to 55 s each on a
2-core machine); on tessel-16x16, where a program has more, smaller steps
(1.5 to 4 minutes each), with TESSEL_TEST_FULL_ZOO=1, as in tests/frontend."""

import os

import numpy as np
import pytest
import torch

from tessel import frontend as fe
from tessel.frontend.api import eval_mode, torch_to_host
from tessel import zoo
from tessel.driver import compile_imported
from tessel.runtime.simulator import simulate

FULL_ZOO = os.environ.get("TESSEL_TEST_FULL_ZOO") == "1"
LARGE = {"resnet18", "bert_layer", "vit_block", "gpt2_block"}
ARCHS = ["tessel-4x4", "tessel-16x16"]


def _params():
    for name in zoo.names():
        for arch in ARCHS:
            marks = []
            if name in LARGE and arch == "tessel-16x16" and not FULL_ZOO:
                marks.append(pytest.mark.skip(
                    reason="large model on the 16x16 grid: minutes; "
                    "TESSEL_TEST_FULL_ZOO=1"))
            yield pytest.param(name, arch, marks=marks, id=f"{name}-{arch}")


def _eager(case):
    """The imported model, its feeds, PyTorch's outputs and the tolerance
    (rtol, atol) they are held to."""
    if case.training:
        module, loss_fn, inputs, targets = case.build()
        model = fe.import_torch_training(module, loss_fn, inputs, targets)
        module.zero_grad()
        loss = loss_fn(module(*inputs), *targets)
        loss.backward()
        golden = [loss] + [p.grad for p in module.parameters()]
        values = list(inputs) + list(targets)
    else:
        module, inputs = case.build()
        model = fe.import_torch(module, inputs)
        with eval_mode(module), torch.no_grad():
            out = module(*inputs)
        golden = list(out) if isinstance(out, (tuple, list)) else [out]
        values = list(inputs)
    feeds = {spec.name: torch_to_host(v) for spec, v in zip(model.signature.inputs, values)}
    return model, feeds, [torch_to_host(g) for g in golden], case.tolerance(module)[:2]


@pytest.mark.parametrize("name,arch", list(_params()))
def test_zoo_model_matches_pytorch(name, arch):
    case = zoo.get(name)
    model, feeds, golden, (rtol, atol) = _eager(case)
    program = compile_imported(model, arch)
    result = simulate(program, feeds)
    assert result.cycles > 0
    if case.quantized:
        macs = {i.fields["dtype"] for stream in program.decoded().values()
                for i in stream if i.op in ("matmul", "matmul_init")}
        assert "i8" in macs, f"{name} on {arch}: MACs in {sorted(macs)}, none in int8"
    for spec, want in zip(model.signature.outputs, golden):
        np.testing.assert_allclose(result.outputs[spec.name], want,
                                   rtol=rtol, atol=atol,
                                   err_msg=f"{name} on {arch}: {spec.name}")
