"""TensorFlow and JAX models beside Tessel in one process, custom operators,
and what the driver says of a model it does not take.

The TensorFlow case runs in a child process: importing TensorFlow into the
test process would cost every later test its memory and threads."""

import importlib.util
import sys
import textwrap

import pytest
import torch

import tessel
import tessel.frontend
from test_script_models import run_script


@torch.library.custom_op("tessel_test::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return scale * torch.tanh(x)


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


class ScaledTanh(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return scaled_tanh(self.fc(x), 2.0)


@pytest.fixture(autouse=True)
def no_decompositions(monkeypatch):
    """Each test starts from an empty registry and leaves none behind."""
    from tessel.frontend import custom_ops

    monkeypatch.setattr(custom_ops, "_DECOMPOSITIONS", {})


def test_a_custom_op_without_a_decomposition_is_named_with_the_fix():
    with pytest.raises(tessel.frontend.UnsupportedOpError,
                       match=r"custom op 'tessel_test::scaled_tanh' at .*test_foreign.py:\d+ "
                             r"has no lowering for Tessel; .*"
                             r"@tessel.register_decomposition\(torch.ops.tessel_test."
                             r"scaled_tanh\)"):
        tessel.import_torch(ScaledTanh().eval(), (torch.randn(4, 8),))


def test_a_custom_op_compiles_through_its_decomposition():
    tessel.register_decomposition(torch.ops.tessel_test.scaled_tanh,
                                  lambda x, scale: scale * torch.tanh(x))
    torch.manual_seed(0)
    result = tessel.compile_and_simulate(ScaledTanh().eval(), (torch.randn(4, 8),),
                                         mapper="heuristic")
    assert result.check.passed, result.check


@torch.library.custom_op("tessel_test::double_scaled_tanh", mutates_args=())
def double_scaled_tanh(x: torch.Tensor) -> torch.Tensor:
    return 2 * scaled_tanh(x, 2.0)


@double_scaled_tanh.register_fake
def _(x):
    return torch.empty_like(x)


class DoubleScaledTanh(torch.nn.Module):
    def forward(self, x):
        return double_scaled_tanh(x)


def test_a_custom_op_a_decomposition_calls_is_decomposed_too():
    # double_scaled_tanh decomposes into scaled_tanh, itself a custom op.
    tessel.register_decomposition(double_scaled_tanh, lambda x: 2 * scaled_tanh(x, 2.0))
    with pytest.raises(tessel.frontend.UnsupportedOpError,
                       match=r"custom op 'tessel_test::scaled_tanh' at .* has no lowering"):
        tessel.import_torch(DoubleScaledTanh(), (torch.randn(4, 8),))
    tessel.register_decomposition(scaled_tanh, lambda x, scale: scale * torch.tanh(x))
    result = tessel.compile_and_simulate(DoubleScaledTanh(), (torch.randn(4, 8),),
                                         mapper="heuristic")
    assert result.check.passed, result.check


def test_register_decomposition_refuses_what_is_no_custom_op():
    with pytest.raises(tessel.InvalidArgumentTypeError, match="PyTorch operator"):
        tessel.register_decomposition(torch.ops.aten.tanh.default, torch.tanh)
    with pytest.raises(tessel.InvalidArgumentTypeError, match="not an operator"):
        tessel.register_decomposition("mylib::op", torch.tanh)
    with pytest.raises(tessel.InvalidArgumentTypeError, match="not a function"):
        tessel.register_decomposition(scaled_tanh, 3)


def test_an_unsupported_model_gets_one_message_naming_what_is_supported():
    with pytest.raises(tessel.InvalidArgumentTypeError,
                       match=r"model is a dict; pass a torch.nn.Module .*TensorFlow model "
                             r".*a jax.jit function, the path of an .onnx file"):
        tessel.compile_and_simulate({"w": 1}, ())


# Tessel's extensions loaded before TensorFlow (a torch model compiled
# first) and TensorFlow's model compiled after: each keeps its own LLVM and
# abseil (tessel._binding). The example covers TensorFlow imported first.
SCRIPT = textwrap.dedent("""
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import numpy as np, torch, tessel

    first = tessel.compile_and_simulate(torch.nn.Linear(8, 4), (torch.randn(2, 8),))
    import tensorflow as tf
    tf.keras.utils.set_random_seed(0)
    fn = tf.function(lambda x: tf.nn.relu(tf.matmul(x, tf.ones((8, 4)))) + 1.0)
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    result = tessel.compile_and_simulate(fn, (x,))
    print("torch", "PASS" if first.check.passed else "FAIL")
    print("tf.function", "PASS" if result.check.passed else "FAIL", result.check.reference)
""")


@pytest.mark.skipif(importlib.util.find_spec("tf2onnx") is None,
                    reason="tensorflow/tf2onnx are not installed (extra `tensorflow`)")
def test_tensorflow_loaded_after_tessel_compiles(tmp_path):
    assert run_script(tmp_path, SCRIPT)[-2:] == ["torch PASS", "tf.function PASS TensorFlow"]


@pytest.mark.parametrize("framework, modules, extra", [
    ("TensorFlow", ("tensorflow", "tf2onnx"), "tensorflow"),
    ("JAX", ("jax", "jax2onnx"), "jax"),
])
def test_a_missing_framework_names_its_extra(monkeypatch, framework, modules, extra):
    from tessel.frontend import from_jax, from_tensorflow

    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)   # as if not installed
    convert = from_tensorflow.to_onnx if framework == "TensorFlow" else from_jax.to_onnx
    with pytest.raises(tessel.MissingExtraError,
                       match=rf"needs the Python package '{modules[0]}', which the "
                             rf"'{extra}' extra installs: pip install 'tessel\[{extra}\]'"):
        convert(object(), [], f"{framework} model")


def test_converted_outputs_are_named_as_a_torch_models():
    import onnx
    from onnx import TensorProto, helper

    from tessel.frontend.api import _outputs_named_as_torch

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
            for n in ("Identity_1:0", "Identity:0")]
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["Identity_1:0"]),
                               helper.make_node("Neg", ["Identity_1:0"], ["Identity:0"])],
                              "g", [x], outs)
    renamed = onnx.load_from_string(_outputs_named_as_torch(
        helper.make_model(graph).SerializeToString()))
    onnx.checker.check_model(renamed)
    assert [o.name for o in renamed.graph.output] == ["output0", "output1"]
    assert [list(n.output) for n in renamed.graph.node] == [["output0"], ["output1"]]
    assert list(renamed.graph.node[1].input) == ["output0"]
    # An output that is the graph's input keeps its name (no node makes it),
    # and so do outputs listed twice.
    passthrough = helper.make_model(helper.make_graph([], "g", [x], [x])).SerializeToString()
    assert _outputs_named_as_torch(passthrough) == passthrough
    twice = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g", [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])] * 2)).SerializeToString()
    assert _outputs_named_as_torch(twice) == twice
