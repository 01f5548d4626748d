"""Every zoo model, imported through PyTorch and ONNX: the imported linalg,
executed by MLIR 22's CPU JIT, matches PyTorch eager (onnxruntime for ONNX)
within the case's tolerance."""

import numpy as np
import pytest

from tessel import zoo


def _params():
    for name, case in zoo.CASES.items():
        for variant in zoo.VARIANTS:
            marks = []
            if (name, variant) in zoo.XFAIL:
                marks.append(pytest.mark.xfail(reason=zoo.XFAIL[(name, variant)], strict=True))
            if ("jit", variant) in case.slow:
                marks.append(pytest.mark.slow_zoo)
            yield pytest.param(name, variant, marks=marks, id=f"{name}-{variant}")


@pytest.mark.parametrize("name,variant", list(_params()))
def test_imported_linalg_matches_golden(name, variant):
    case = zoo.get(name)
    result = zoo.run_case(name, variant)
    assert result.mismatches(*result.tolerance) == []
    assert "cf.assert" not in result.model.mlir


# The JIT of these ONNX variants is opt-in (see slow_zoo); still import them
# by default, so their hand-off passes the input contract.
@pytest.mark.parametrize("name", [n for n, c in zoo.CASES.items() if ("jit", "onnx") in c.slow])
def test_onnx_import_passes_the_contract(name):
    result = zoo.run_case(name, "onnx", jit=False)
    sig = result.model.signature
    assert [tuple(o.shape) for o in sig.outputs] == [np.shape(g) for g in result.golden]
    assert sig.weights, "ONNX initializers should be lifted to weight arguments"


def test_xfail_entries_name_real_cases():
    for name, variant in zoo.XFAIL:
        assert name in zoo.CASES and variant in zoo.VARIANTS


def test_registry_refuses_a_duplicate_name():
    with pytest.raises(ValueError, match="registered twice"):
        zoo.register("mlp")(lambda: None)


def test_training_step_signature_names_loss_and_gradients():
    result = zoo.run_case("mlp_train_step", "torch", jit=False)
    sig = result.model.signature
    assert [o.name for o in sig.outputs] == [
        "loss", "grad.fc1.weight", "grad.fc1.bias", "grad.fc2.weight", "grad.fc2.bias"]
    assert [w.name for w in sig.weights] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [i.name for i in sig.inputs] == ["x", "target"]
    assert sig.outputs[0].shape == ()
    assert "tm_tensor" not in result.model.mlir


def test_a_quantized_case_is_held_to_one_step_of_its_output():
    pytest.importorskip("torchao")
    import torch

    case = zoo.get("mlp_int8")
    module, _ = case.build()
    rtol, atol, _ = case.tolerance(module)
    step = zoo.cases.output_step(module)
    assert rtol == 0 and step > 0 and atol == pytest.approx(step)
    # A float model's output has no quantization step to be held to.
    float_module, _ = zoo.get("mlp").build()
    with pytest.raises(ValueError, match="not dequantized from int8"):
        zoo.cases.output_step(torch.export.export(float_module, (torch.zeros(8, 64),)).module())
