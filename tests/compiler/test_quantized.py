"""Quantized models: an ONNX model quantized by onnxruntime's own
``quantize_static`` (QDQ format, int8 activations, per-channel int8 weights)
compiles and gives onnxruntime's outputs within one output quantization
step; its linear layers, convolutions and attention products multiply
int8 values on the MAC array; the CPU emulator gives the simulator's bits. The reference is onnxruntime running the QDQ
graph as written (graph optimizations off): its default fuses QDQ pairs
into integer kernels that requantize with arithmetic of their own.

A PyTorch model quantized with PT2E (torchao's prepare_pt2e and
convert_pt2e, XNNPACK's symmetric per-channel int8 config) does the same
against PyTorch eager running the converted model."""

import numpy as np
import onnx
import pytest
import torch
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

import tessel
from tessel import zoo
from tessel.frontend import UnsupportedOpError, import_torch
from tessel.runtime.emulator import emulate


class _Calibration(CalibrationDataReader):
    def __init__(self, name, shape):
        g = torch.Generator().manual_seed(1)
        self.batches = iter([{name: torch.randn(*shape, generator=g).numpy()}
                             for _ in range(8)])

    def get_next(self):
        return next(self.batches, None)


def _quantized(tmp_path, module, x):
    """The ONNX file of ``module`` quantized (QDQ, per channel) and the
    scale of its output's quantization."""
    path, qpath = tmp_path / "model.onnx", tmp_path / "model_q.onnx"
    torch.onnx.export(module.eval(), (x,), str(path), input_names=["x"],
                      output_names=["y"], dynamo=False, opset_version=17)
    quantize_static(str(path), str(qpath), _Calibration("x", tuple(x.shape)),
                    quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    graph = onnx.load(str(qpath)).graph
    last = next(n for n in reversed(graph.node) if n.op_type == "DequantizeLinear")
    scale = next(onnx.numpy_helper.to_array(t) for t in graph.initializer
                 if t.name == last.input[1])
    return qpath, float(scale)


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10)), torch.randn(8, 64)


def _gpt2_block():
    module, (x,) = zoo.get("gpt2_block_small").build()
    return module, x


def _cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv2d(8, 4, 3)), torch.randn(1, 3, 12, 12)


@pytest.mark.parametrize("build, mac_dtype",
                         [(_mlp, "i8"), (_cnn, "i8"), (_gpt2_block, "i8")],
                         ids=["mlp", "cnn", "gpt2_block_small"])
def test_an_onnx_qdq_model_gives_onnxruntimes_outputs(tmp_path, build, mac_dtype):
    torch.manual_seed(0)
    module, x = build()
    path, step = _quantized(tmp_path, module, x)
    program = tessel.compile(str(path), (x.numpy(),), arch="tessel-4x4")
    result = program.simulate({"x": x.numpy()})
    import onnxruntime as ort
    as_written = ort.SessionOptions()
    as_written.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(str(path), as_written,
                                providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})[0]
    # Within one step of the output's quantization.
    assert np.abs(result.outputs["y"] - want).max() <= step * (1 + 1e-6)
    macs = {i.fields["dtype"] for stream in program.decoded().values() for i in stream
            if i.op in ("matmul", "matmul_init")}
    assert macs == {mac_dtype}
    emulated = emulate(program, {"x": x.numpy()}, device="cpu").outputs
    assert emulated["y"].tobytes() == result.outputs["y"].tobytes()


def _pt2e_quantized(module, x):
    """``module`` quantized with PT2E as the zoo's int8 cases are
    (XNNPACK's symmetric per-channel config, 8 calibration inputs) and the
    step of its output's quantization."""
    converted, _ = zoo.cases.in_int8((module, (x,)))
    return converted, zoo.cases.output_step(converted)


@pytest.mark.parametrize("build, mac_dtypes",
                         [(_mlp, {"i8"}), (_cnn, {"i8"}), (_gpt2_block, {"i8", "f32"})],
                         ids=["mlp", "cnn", "gpt2_block_small"])
def test_a_pt2e_model_gives_pytorchs_outputs(build, mac_dtypes):
    # The GPT-2 block's linear layers multiply i8; XNNPACK's quantizer
    # leaves its attention's products in f32, and so does the program.
    pytest.importorskip("torchao")
    torch.manual_seed(0)
    module, x = build()
    converted, step = _pt2e_quantized(module, x)
    program = tessel.compile(converted, (x,), arch="tessel-4x4")
    result = program.simulate([x.numpy()])
    (name, got), = result.outputs.items()
    with torch.no_grad():
        want = converted(x).numpy()
    assert np.abs(got - want).max() <= step * (1 + 1e-6)
    macs = {i.fields["dtype"] for stream in program.decoded().values() for i in stream
            if i.op in ("matmul", "matmul_init")}
    assert macs == mac_dtypes
    emulated = emulate(program, {program.inputs[0]: x.numpy()},
                       device="cpu").outputs
    assert emulated[name].tobytes() == got.tobytes()


def test_a_pt2e_weight_transposed_by_a_copy_multiplies_int8():
    # With the default mapping the MLP's second weight [10, 128] is
    # transposed by a copy of its int8 values (a copy computes nothing, so
    # it takes what the MAC array reads).
    pytest.importorskip("torchao")
    torch.manual_seed(0)
    module, x = _mlp()
    converted, step = _pt2e_quantized(module, x)
    program = tessel.compile(converted, (x,), arch="tessel-4x4", mapper="default")
    (got,) = program.simulate([x.numpy()]).outputs.values()
    with torch.no_grad():
        want = converted(x).numpy()
    assert np.abs(got - want).max() <= step * (1 + 1e-6)
    copies = {i.fields["in_dtype"] for stream in program.decoded().values() for i in stream
              if i.op == "vector_unary" and i.fields["op"] == "copy"}
    assert "i8" in copies


@pytest.mark.parametrize("build", [_mlp, _cnn], ids=["mlp", "cnn"])
def test_a_pt2e_model_with_uint8_activations_multiplies_int8(build):
    # X86InductorQuantizer's default: uint8 activations, shifted into int8
    # by the capture (the same values); its last output is not quantized,
    # so the program's differs from PyTorch's in the last bits of f32.
    pytest.importorskip("torchao")
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer, get_default_x86_inductor_quantization_config)

    torch.manual_seed(0)
    module, x = build()
    exported = torch.export.export(module.eval(), (x,)).module()
    prepared = prepare_pt2e(exported, X86InductorQuantizer().set_global(
        get_default_x86_inductor_quantization_config()))
    prepared(x)
    converted = convert_pt2e(prepared)
    assert any(n.args[-1] == torch.uint8 for n in converted.graph.nodes
               if n.target == torch.ops.quantized_decomposed.quantize_per_tensor.default)
    program = tessel.compile(converted, (x,), arch="tessel-4x4")
    (got,) = program.simulate([x.numpy()]).outputs.values()
    with torch.no_grad():
        want = converted(x).numpy()
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    assert {i.fields["dtype"] for stream in program.decoded().values() for i in stream
            if i.op in ("matmul", "matmul_init")} == {"i8"}


def test_a_dynamic_pt2e_model_is_refused_by_its_op():
    pytest.importorskip("torchao")
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.testing.pt2e._xnnpack_quantizer import (XNNPACKQuantizer,
                                                          get_symmetric_quantization_config)

    module, x = _mlp()
    exported = torch.export.export(module.eval(), (x,)).module()
    prepared = prepare_pt2e(exported, XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)))
    prepared(x)
    with pytest.raises(UnsupportedOpError,
                       match=r"quantization op 'quantized_decomposed::choose_qparams.*"
                             r"static int8 quantization"):
        import_torch(convert_pt2e(prepared), (x,))
