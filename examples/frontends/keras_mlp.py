"""A Keras 3 model compiled for Tessel and checked against Keras's own output.

On Keras's torch backend a `keras.Model` is a `torch.nn.Module`, so it goes
through the same path as any PyTorch module: captured with `torch.export` in
this process, lowered, simulated and checked against the model run eagerly.
The backend must be chosen before keras is first imported.

    python examples/frontends/keras_mlp.py [--arch tessel-16x16]
"""

import argparse
import os

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

import tessel  # noqa: E402

# Simulated outputs against Keras's, relative to the output's scale.
TOLERANCE = 1e-4


def build_model() -> keras.Model:
    inputs = keras.Input((64,))
    hidden = keras.layers.Dense(128, activation="gelu")(inputs)
    hidden = keras.layers.LayerNormalization()(hidden)
    outputs = keras.layers.Dense(10)(hidden)
    return keras.Model(inputs, outputs, name="keras_mlp")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="tessel-4x4")
    args = parser.parse_args()
    if keras.backend.backend() != "torch":
        raise SystemExit(f"KERAS_BACKEND is {keras.backend.backend()!r}: run with "
                         "KERAS_BACKEND=torch (Tessel takes Keras models on its torch backend)")

    keras.utils.set_random_seed(0)
    model = build_model()
    x = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    result = tessel.compile_and_simulate(model, (x,), arch=args.arch)
    print(result.check)

    # Against Keras's own inference path as well as the eager module call.
    expected = model.predict(x, verbose=0)
    (got,) = result.outputs.values()
    error = float(np.abs(got - expected).max() / np.abs(expected).max())
    passed = result.check.passed and error <= TOLERANCE
    print(f"{'PASS' if passed else 'FAIL'}: against Keras (model.predict), max |error| / "
          f"max |output| {error:.2e} (tolerance {TOLERANCE:g}); {result.cycles} cycles on "
          f"{args.arch}")
    if not passed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
