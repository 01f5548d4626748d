"""Bad input ends in one clear message naming the problem and what to do,
with the cause kept and no output left behind."""

import sys

import pytest
import torch

import badmodels
from tessel import errors as tessel_errors
from tessel import frontend as fe


def _no_leftovers(path):
    assert not path.exists()
    assert list(path.parent.iterdir()) == []


def test_missing_onnx_file(tmp_path):
    with pytest.raises(fe.ModelFileError, match="no such file; check the path"):
        fe.import_onnx(tmp_path / "absent.onnx")


def test_corrupt_onnx_file(tmp_path):
    path = tmp_path / "corrupt.onnx"
    path.write_bytes(b"\x08\x07this is not a protobuf\xff\xfe" * 10)
    with pytest.raises(fe.ModelFileError) as info:
        fe.import_onnx(path)
    msg = str(info.value)
    assert "not a valid ONNX model" in msg and "re-export it" in msg and str(path) in msg
    assert info.value.child_traceback and info.value.__cause__ is not None


def test_data_dependent_control_flow():
    with pytest.raises(fe.TraceError) as info:
        fe.import_torch(badmodels.DataDependentBranch(), torch.randn(4))
    msg = str(info.value)
    assert "torch.export cannot trace" in msg
    assert "data-dependent control flow" in msg and "torch.where or torch.cond" in msg
    # torch.export runs in the user's process: torch's own error is the cause.
    assert info.value.__cause__ is not None


def test_op_outside_the_contract_names_op_and_source_line():
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.import_torch(badmodels.Sorts(), torch.randn(4, 4))
    err = info.value
    assert err.op == "tm_tensor.sort"
    assert err.location.startswith(badmodels.__file__)
    assert "outside Tessel's input contract" in str(err)


def test_op_torch_mlir_cannot_lower():
    with pytest.raises(fe.LoweringError) as info:
        fe.import_torch(badmodels.ComplexFFT(), torch.randn(8))
    msg = str(info.value)
    assert "could not lower" in msg and "complex<f32>" in msg
    assert badmodels.__file__ in msg


def test_training_with_index_cross_entropy_is_refused():
    with pytest.raises(fe.UnsupportedOpError, match="tm_tensor.scatter") as info:
        fe.import_torch_training(badmodels.Linear(), badmodels.index_cross_entropy,
                                 torch.randn(2, 4), torch.tensor([0, 2]))
    assert "one-hot loss" in str(info.value)


def test_module_defined_in_main_imports(monkeypatch):
    """The graph is captured in this process (torch.export), so a class the
    frontend process could not import (defined in __main__) is no obstacle."""
    class Local(torch.nn.Module):
        def forward(self, x):
            return x * 2.0

    monkeypatch.setattr(Local, "__module__", "__main__")
    model = fe.import_torch(Local(), torch.randn(2))
    assert "linalg.generic" in model.mlir


def test_module_built_by_a_function_imports():
    def make(scale):
        class Scaled(torch.nn.Module):  # local: pickle could not send it
            def forward(self, x):
                return x * scale
        return Scaled()

    model = fe.import_torch(make(3.0), torch.randn(2))
    assert [a.name for a in model.signature.inputs] == ["x"]


def test_failed_onnx_export_leaves_no_file(tmp_path):
    out = tmp_path / "m.onnx"
    with pytest.raises(fe.TraceError, match="torch.onnx.export failed"):
        fe.export_onnx(badmodels.DataDependentBranch(), torch.randn(4), out)
    assert list(tmp_path.iterdir()) == []


def test_failed_import_writes_nothing(tmp_path, monkeypatch):
    # The import API returns objects and writes nothing; only save() writes,
    # atomically. A failing import leaves the working directory untouched.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(fe.FrontendError):
        fe.import_torch(badmodels.Sorts(), torch.randn(4, 4))
    assert list(tmp_path.iterdir()) == []


def test_unsupported_element_type_names_the_model_and_the_argument():
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.import_torch(badmodels.Doubles(), torch.randn(4).to(torch.float8_e4m3fn))
    msg = str(info.value)
    assert msg.startswith("module Doubles: element type f8E4M3FN of input 'x' is not "
                          "supported (supported: f32, f64, f16, bf16, ")


def test_keep_f32_names_an_op_the_model_does_not_have():
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU()).to(torch.bfloat16)
    x = torch.randn(2, 8).to(torch.bfloat16)
    with pytest.raises(tessel_errors.InvalidArgumentError,
                       match=r"keep_f32 names 'softmax', which no ATen op of the model is; "
                             r"its ops are: gelu, linear"):
        fe.import_torch(model, x, keep_f32=("gelu", "softmax"))
    with pytest.raises(tessel_errors.InvalidArgumentError, match="keep_f32 must name ATen ops"):
        fe.import_torch(model, x, keep_f32=(3,))


def test_keep_f32_refuses_an_op_of_several_results():
    class Halves(torch.nn.Module):
        def forward(self, x):
            a, b = torch.split(x, 4, dim=1)
            return a * b

    x = torch.randn(2, 8).to(torch.bfloat16)
    with pytest.raises(fe.UnsupportedOpError,
                       match=r"keep_f32: aten.split gives list, not one tensor"):
        fe.import_torch(Halves(), x, keep_f32=("split",))


def test_export_to_a_missing_directory_names_the_path(tmp_path):
    out = tmp_path / "absent" / "m.onnx"
    with pytest.raises(fe.ModelFileError) as info:
        fe.export_onnx(badmodels.Linear(), torch.randn(2, 4), out)
    assert f"cannot write {out}: the directory {out.parent} does not exist" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_concurrent_exports_use_distinct_temporary_files(tmp_path, monkeypatch):
    seen = []

    def fake_request(req, what, timeout=-1):
        seen.append(req["path"])
        open(req["path"], "wb").close()
        return {"ok": True}

    monkeypatch.setattr(fe.worker, "request", fake_request)
    for _ in range(2):
        fe.export_onnx(badmodels.Linear(), torch.randn(2, 4), tmp_path / "m.onnx")
    assert len(set(seen)) == 2
    assert all(p.startswith(str(tmp_path / ".m.onnx.")) for p in seen)
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_loss_function_defined_in_main_is_called_a_function():
    def loss(out, target):
        return ((out - target) ** 2).mean()

    loss.__module__ = "__main__"
    with pytest.raises(fe.ModelTransferError,
                       match=r"function .*loss is defined in __main__"):
        fe.import_torch_training(badmodels.Linear(), loss, torch.randn(2, 4), torch.randn(2, 3))


class _TwoDimensionalFFT(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).real   # the line the error names


def test_an_op_torch_mlir_names_only_by_its_constant_is_named():
    # torch-mlir reports the `torch.constant.int` the FFT reads, not the FFT;
    # the op at that line that reads it is the one to name.
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.import_torch(_TwoDimensionalFFT(), torch.randn(4, 8))
    err = info.value
    assert err.op == "aten.fft_fft" and err.location.startswith(f"{__file__}:")
    assert str(err).startswith(f"module _TwoDimensionalFFT: op 'aten.fft_fft' at "
                               f"{err.location} has no lowering to linalg-on-tensors")
    assert "torch.constant.int" in str(err)    # torch-mlir's own words follow


@pytest.mark.parametrize("model, op, shape", [
    (badmodels.CountsPositives, "aten.nonzero", (4, 8)),
    (badmodels.SumsPositives, "aten.masked_select", (4, 8)),
    (badmodels.SumsDistinct, "aten._unique2", (8,)),
])
def test_an_output_shape_that_depends_on_the_data_is_named(model, op, shape):
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.import_torch(model(), torch.randn(*shape))
    err = info.value
    assert err.op == op and err.location.startswith(f"{badmodels.__file__}:")
    msg = str(err)
    assert msg.startswith(f"module {model.__name__}: op '{op}' at {err.location} returns "
                          f"a tensor whose shape depends on the input's values")
    assert "static shapes" in msg and "torch.where" in msg
    assert "tm_tensor" not in msg and "sorting" not in msg


@pytest.mark.parametrize("inputs, said", [
    ((), "forward() takes 1 input (x), 0 example inputs were given"),
    ((torch.randn(2, 4), torch.randn(2, 4)),
     "forward() takes 1 input (x), 2 example inputs were given"),
])
def test_the_wrong_number_of_example_inputs_is_counted(inputs, said):
    with pytest.raises(fe.TraceError) as info:
        fe.import_torch(badmodels.Linear(), inputs)
    assert str(info.value) == (f"module Linear: {said}; pass one tensor per input of "
                               f"forward(), as a tuple")


def test_import_without_torch_names_the_extra(monkeypatch):
    # As after `pip install tessel` without extras.
    import tessel

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(tessel.MissingExtraError) as info:
        tessel.import_torch(object(), ())
    assert str(info.value) == (
        "tessel.import_torch: needs the Python package 'torch', which the 'frontend' "
        "extra installs: pip install 'tessel[frontend]' (from a checkout: pip install "
        "'.[frontend]')")
    assert isinstance(info.value, ModuleNotFoundError) and info.value.name == "torch"


def test_a_frontend_process_without_torch_mlir_names_the_extra(tmp_path, monkeypatch):
    # The frontend process imports what this one's sys.path finds first: a
    # torch_mlir that is not there.
    fake = tmp_path / "torch_mlir"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torch_mlir'\", name='torch_mlir')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    process = fe.worker.Worker()
    try:
        with pytest.raises(tessel_errors.MissingExtraError) as info:
            process.request({"op": "warm"}, "module M")
    finally:
        process.shutdown()
    assert str(info.value).startswith(
        "module M: the frontend process: needs the Python package 'torch_mlir', which "
        "the 'frontend' extra installs: pip install 'tessel[frontend]'")


def test_the_command_line_names_the_extra_the_frontend_process_lacks(monkeypatch, capsys,
                                                                     tmp_path):
    from tessel import cli

    def without_torch_mlir(req, what, timeout=-1):
        raise tessel_errors.MissingExtraError(f"{what}: the frontend process", "torch_mlir")

    monkeypatch.setattr(fe.worker, "request", without_torch_mlir)
    assert cli.main(["compile", "mlp", "-q", "-o", str(tmp_path / "p")]) == 2
    assert capsys.readouterr().err == (
        "tessel compile: needs the Python package 'torch_mlir', which the 'frontend' "
        "extra installs: pip install 'tessel[frontend]' (from a checkout: pip install "
        "'.[frontend]')\n")
