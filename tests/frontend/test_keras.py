"""Keras 3 models on Keras's torch backend: a Sequential MLP and a
functional CNN (channels last) compile, and the simulated outputs match
what Keras itself predicts (within 1e-5 of the output's scale) besides
PyTorch eager (the driver's check). They run in a child process, since
the backend is chosen when keras is first imported. A model on another
backend is refused with what to set."""

import importlib.util
import textwrap

import pytest

from test_script_models import run_script

# Not imported here: importing keras picks its backend for the process.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                reason="keras is not installed (extra `keras`)")

SCRIPT = textwrap.dedent("""
    import os
    os.environ["KERAS_BACKEND"] = "torch"
    import keras, numpy as np, tessel

    keras.utils.set_random_seed(0)
    mlp = keras.Sequential([keras.Input((32,)),
                            keras.layers.Dense(64, activation="relu"),
                            keras.layers.Dense(10)])
    inputs = keras.Input((16, 16, 3))
    h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    h = keras.layers.MaxPooling2D()(h)
    cnn = keras.Model(inputs, keras.layers.Dense(10)(keras.layers.Flatten()(h)))
    rng = np.random.default_rng(0)
    for name, model, shape in (("mlp", mlp, (8, 32)), ("cnn", cnn, (2, 16, 16, 3))):
        x = rng.standard_normal(shape).astype(np.float32)
        result = tessel.compile_and_simulate(model, (x,), mapper="heuristic")
        expected = model.predict(x, verbose=0)
        (got,) = result.outputs.values()
        error = float(np.abs(got - expected).max() / np.abs(expected).max())
        print(name, "PASS" if result.check.passed and error < 1e-5 else f"FAIL {error}")
""")


def test_keras_models_on_the_torch_backend_match_keras(tmp_path):
    assert run_script(tmp_path, SCRIPT) == ["mlp PASS", "cnn PASS"]


def test_a_keras_model_on_another_backend_is_refused_with_the_fix():
    # On Keras's JAX and NumPy backends a model is neither an nn.Module nor
    # a TensorFlow object; one is stood in for here by a class from keras's
    # package (importing keras would fix its backend for this process).
    import tessel

    Functional = type("Functional", (), {"__module__": "keras.src.models.functional"})
    with pytest.raises(tessel.InvalidArgumentTypeError,
                       match=r"Keras Functional on the .* backend.*KERAS_BACKEND=torch"):
        tessel.compile_and_simulate(Functional(), ())
