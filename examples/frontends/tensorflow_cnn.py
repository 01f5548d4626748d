"""A TensorFlow CNN compiled for Tessel and checked against TensorFlow's own
output.

The model is a Keras model on the TensorFlow backend (what `tf.keras` is in
TensorFlow 2.16 and later); a `tf.function` goes the same way. Tessel
converts it to ONNX with tf2onnx in this process, imports the ONNX through
torch-mlir, maps, lowers and simulates it, and compares the simulated
outputs with the model run by TensorFlow.

    python examples/frontends/tensorflow_cnn.py [--arch tessel-16x16]
"""

import argparse
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tessel  # noqa: E402


def build_model() -> tf.keras.Model:
    inputs = tf.keras.Input((32, 32, 3))
    h = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
    h = tf.keras.layers.MaxPooling2D()(h)
    h = tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu")(h)
    h = tf.keras.layers.GlobalAveragePooling2D()(h)
    outputs = tf.keras.layers.Dense(10)(h)
    return tf.keras.Model(inputs, outputs, name="tensorflow_cnn")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="tessel-4x4")
    args = parser.parse_args()

    tf.keras.utils.set_random_seed(0)
    model = build_model()
    x = np.random.default_rng(0).standard_normal((2, 32, 32, 3)).astype(np.float32)
    result = tessel.compile_and_simulate(model, (x,), arch=args.arch)
    # The driver's check runs the model in TensorFlow on the same inputs: its
    # line reads PASS or FAIL "against TensorFlow", with the largest errors.
    print(f"{result.cycles} cycles on {args.arch}")
    print(result.check)
    if not result.check.passed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
