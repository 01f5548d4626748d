"""Bad input ends in one clear message naming the problem and what to do,
with the cause kept and no output left behind."""

import pytest
import torch

import badmodels
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
        fe.import_torch(badmodels.Doubles(), torch.randn(4, dtype=torch.bfloat16))
    msg = str(info.value)
    assert msg.startswith("module Doubles: element type bf16 of input 'x' is not supported")


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


def test_an_op_torch_mlir_names_only_by_its_constant_is_named_by_its_line():
    # torch-mlir reports the `torch.constant.int` the FFT reads, not the FFT.
    with pytest.raises(fe.UnsupportedOpError) as info:
        fe.import_torch(_TwoDimensionalFFT(), torch.randn(4, 8))
    msg = str(info.value)
    assert msg.startswith("module _TwoDimensionalFFT: an op at the source line below has "
                          "no lowering to linalg-on-tensors in torch-mlir (which names "
                          "only 'torch.constant.int'")
    assert __file__ in msg
