"""ONNX import: which initializers become weight arguments."""

import numpy as np
import onnx
import torch

import smallmodels
from tessel import frontend as fe


def test_shape_controlling_initializers_stay_constants(tmp_path):
    # F.interpolate(scale_factor=2) exports as Resize with a float `scales`
    # initializer; lifted to an argument it would make the output size a
    # run-time value. Only the convolution's weights become arguments.
    torch.manual_seed(0)
    module = smallmodels.Upsample().eval()
    x = torch.randn(1, 2, 5, 5)
    path = fe.export_onnx(module, x, tmp_path / "upsample.onnx")
    graph = onnx.load(path).graph
    resize = next(n for n in graph.node if n.op_type == "Resize")
    scales = resize.input[2]
    assert scales in {t.name for t in graph.initializer}

    model = fe.import_onnx(path)
    sig = model.signature
    assert [w.name for w in sig.weights] == ["conv.weight", "conv.bias"]
    assert scales not in model.weights
    assert [i.name for i in sig.inputs] == ["x"]
    assert sig.outputs[0].shape == (1, 3, 10, 10)
    out = fe.run_reference(model, x.numpy())[0]
    np.testing.assert_allclose(out, module(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_a_graph_that_does_not_pickle_exports_through_its_program(tmp_path):
    # torch.export's module() (a PT2E quantized model is one) does not
    # pickle for the frontend process; export_onnx sends its exported
    # program instead, and the file computes what the graph does.
    import onnxruntime as ort

    torch.manual_seed(0)
    module = smallmodels.Upsample().eval()
    x = torch.randn(1, 2, 5, 5)
    graph = torch.export.export(module, (x,)).module()
    path = fe.export_onnx(graph, x, tmp_path / "graph.onnx")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, module(x).detach().numpy(), rtol=1e-5, atol=1e-5)
