"""Quantized models: an ONNX model quantized by onnxruntime's own
``quantize_static`` (QDQ format, int8 activations, per-channel int8 weights)
compiles and gives onnxruntime's outputs within one output quantization
step; its linear layers and attention products multiply int8 values on the
MAC array (its convolutions the dequantized f32 values); the CPU emulator
gives the simulator's bits. The reference is onnxruntime running the QDQ
graph as written (graph optimizations off): its default fuses QDQ pairs
into integer kernels that requantize with arithmetic of their own."""

import numpy as np
import onnx
import pytest
import torch
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

import tessel
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
    from tessel import zoo
    module, (x,) = zoo.get("gpt2_block_small").build()
    return module, x


def _cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv2d(8, 4, 3)), torch.randn(1, 3, 12, 12)


@pytest.mark.parametrize("build, mac_dtype",
                         [(_mlp, "i8"), (_cnn, "f32"), (_gpt2_block, "i8")],
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
