"""ImportedModel: save/load round trip, validation on load, atomic save,
dynamic batch, and the contract check on its own."""

import json

import numpy as np
import pytest
import torch

import tessel
from tessel import frontend as fe
from tessel import zoo


@pytest.fixture(scope="module")
def mlp():
    module, inputs = zoo.get("mlp").build()
    return module, inputs, fe.import_torch(module, inputs, name="mlp")


def test_weights_are_arguments_not_constants(mlp):
    _, _, model = mlp
    assert "dense_resource" not in model.mlir
    assert [w.name for w in model.signature.weights] == [
        "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert model.signature.args[-1].kind == "input"
    assert model.weights["fc1.weight"].shape == (128, 64)


def test_non_persistent_buffer_is_a_weight_argument():
    import smallmodels

    torch.manual_seed(0)
    module = smallmodels.PositionTable().eval()
    x = torch.randn(4, 16)
    model = fe.import_torch(module, (x,))
    assert [w.name for w in model.signature.weights] == ["lin.weight", "lin.bias", "pos"]
    np.testing.assert_array_equal(model.weights["pos"], module.pos.numpy())
    result = tessel.compile_and_simulate(module, (x,), arch="tessel-4x4")
    assert result.check.passed, result.check


def test_save_load_round_trip(mlp, tmp_path):
    module, inputs, model = mlp
    model.save(tmp_path / "m")
    loaded = fe.ImportedModel.load(tmp_path / "m")
    assert loaded.mlir == model.mlir
    assert loaded.signature == model.signature
    for name, w in model.weights.items():
        np.testing.assert_array_equal(loaded.weights[name], w)
    out = fe.run_reference(loaded, inputs[0].numpy())[0]
    np.testing.assert_allclose(out, module(*inputs).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_save_refuses_to_overwrite_unless_asked(mlp, tmp_path):
    _, _, model = mlp
    model.save(tmp_path / "m")
    with pytest.raises(FileExistsError):
        model.save(tmp_path / "m")
    model.save(tmp_path / "m", overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_failed_save_leaves_nothing(mlp, tmp_path, monkeypatch):
    _, _, model = mlp

    def broken(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        model.save(tmp_path / "m")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage,message", [
    (lambda d: (d / "weights.npz").unlink(), "weights.npz: file missing"),
    (lambda d: (d / "signature.json").write_text("{"), "signature.json: not valid JSON"),
    (lambda d: _edit_sig(d, lambda s: s.update(version=99)), "field 'version' is 99"),
    (lambda d: _edit_sig(d, lambda s: s.update(version=True)),
     "field 'version' should be int, got bool"),
    (lambda d: _edit_sig(d, lambda s: s["args"][-1].update(shape=[True, 64])),
     "field 'args[4]': tensor 'x': bad dimension True"),
    (lambda d: _edit_sig(d, lambda s: s["args"].pop(0)),
     "arrays ['fc1.weight'] are not weights in signature.json"),
    (lambda d: _edit_sig(d, lambda s: s["args"].insert(
        0, {"name": "extra", "shape": [2], "dtype": "float32", "kind": "weight"})),
     "weight 'extra', an argument in signature.json, is missing"),
    (lambda d: _edit_sig(d, lambda s: s["args"][0].pop("dtype")), "field 'args[0].dtype' is missing"),
    (lambda d: _edit_sig(d, lambda s: s["args"][0].update(shape=[1, 2])),
     "weight 'fc1.weight' is float32[128, 64], signature.json says float32[1, 2]"),
    (lambda d: _edit_sig(d, lambda s: s.update(func_name="other")), "has no function @other"),
])
def test_load_names_the_bad_file_and_field(mlp, tmp_path, damage, message):
    _, _, model = mlp
    d = model.save(tmp_path / "m")
    damage(d)
    with pytest.raises(fe.ImportedModelFormatError, match=message.replace("[", r"\[")):
        fe.ImportedModel.load(d)


def _edit_sig(d, change):
    sig = json.loads((d / "signature.json").read_text())
    change(sig)
    (d / "signature.json").write_text(json.dumps(sig))


def test_constructor_checks_weights_like_load(mlp):
    _, _, model = mlp
    weights = dict(model.weights, **{"fc1.weight": np.zeros((1, 2), np.float32)})
    with pytest.raises(ValueError, match=r"weight 'fc1.weight' is float32\[1, 2\], the "
                                         r"signature says float32\[128, 64\]"):
        fe.ImportedModel(model.mlir, weights, model.signature)


def test_dynamic_batch():
    module, (x,) = zoo.get("mlp").build()
    model = tessel.import_torch(module, x, dynamic_batch=True)
    assert model.signature.inputs[0].shape == (None, 64)
    assert model.signature.outputs[0].shape == (None, 10)
    assert "cf.assert" not in model.mlir
    for batch in (3, 17):
        xb = torch.randn(batch, 64)
        out = fe.run_reference(model, xb.numpy())[0]
        np.testing.assert_allclose(out, module(xb).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_reference_names_a_wrong_input(mlp):
    _, _, model = mlp
    with pytest.raises(fe.ReferenceExecutionError, match=r"input 'x' should be float32\[8, 64\]"):
        fe.run_reference(model, np.zeros((8, 63), np.float32))


def test_contract_check_names_op_and_location():
    text = """
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %a) -> tensor<4xf32> {
        scf.yield %t : tensor<4xf32>
      } loc("model.py":12:7)
      return %r : tensor<4xf32>
    }"""
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.check_input_contract(text, "model f")
    assert "op 'scf.for' at model.py:12:7 is outside Tessel's input contract" in str(info.value)
    assert info.value.op == "scf.for" and info.value.location == "model.py:12:7"


@pytest.mark.parametrize("loc,library_dirs,where", [
    # A user's own directory named torch is the user's.
    ('callsite("/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py":125:0 at '
     '"/home/me/torch/mymodel.py":12:3)', (), "/home/me/torch/mymodel.py:12:3"),
    ('callsite("/src/torch/torch/nn/functional.py":10:0 at "/home/me/m.py":5:1)',
     ("/src/torch/torch",), "/home/me/m.py:5:1"),
    ('callsite("/usr/lib/python3/dist-packages/torch_mlir/x.py":1:0 at '
     '"/work/torch/net.py":7:2)', (), "/work/torch/net.py:7:2"),
])
def test_contract_location_skips_only_library_frames(loc, library_dirs, where):
    text = f"""
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %a) -> tensor<4xf32> {{
        scf.yield %t : tensor<4xf32>
      }} loc({loc})
      return %r : tensor<4xf32>
    }}"""
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.check_input_contract(text, "model f", library_dirs=library_dirs)
    assert info.value.location == where


def test_contract_check_drops_asserts():
    text = """
    func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
      %t = arith.constant true
      cf.assert %t, "shape check"
      return %a : tensor<?xf32>
    }"""
    out = fe.check_input_contract(text)
    assert "cf.assert" not in out and "func.func @f" in out


def test_keep_f32_computes_the_named_ops_in_f32():
    # A bf16 GELU imports as bf16 arithmetic (erf on bf16); kept in f32 its
    # input is widened, erf runs on f32 and the result is rounded back.
    import torch

    from tessel import frontend as fe
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU()).to(torch.bfloat16)
    x = torch.randn(2, 8).to(torch.bfloat16)
    plain = fe.import_torch(model, x)
    kept = fe.import_torch(model, x, keep_f32=("gelu",))
    assert any("math.erf" in line and ": bf16" in line for line in plain.mlir.splitlines())
    erfs = [line for line in kept.mlir.splitlines() if "math.erf" in line]
    assert erfs and all(": f32" in line for line in erfs)
    assert kept.signature == plain.signature
