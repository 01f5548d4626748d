"""A JAX MLP (a `jax.jit` function) compiled for Tessel and checked against
JAX's own output.

The parameters are arrays the function closes over; Tessel converts the
function to ONNX with jax2onnx in this process (the closed-over arrays
become weights), imports it through torch-mlir, maps, lowers and simulates
it, and compares the simulated outputs with the jitted function's.

    python examples/frontends/jax_mlp.py [--arch tessel-16x16]
"""

import argparse

import jax
import jax.numpy as jnp
import numpy as np

import tessel


def build_mlp(key, sizes=(64, 256, 256, 10)):
    """Parameters of an MLP and its jitted forward function."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, wkey = jax.random.split(key)
        params.append((jax.random.normal(wkey, (fan_in, fan_out)) / np.sqrt(fan_in),
                       jnp.zeros(fan_out)))

    @jax.jit
    def mlp(x):
        for w, b in params[:-1]:
            x = jax.nn.gelu(x @ w + b)
        w, b = params[-1]
        return jax.nn.softmax(x @ w + b, axis=-1)

    return mlp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="tessel-4x4")
    args = parser.parse_args()

    mlp = build_mlp(jax.random.key(0))
    x = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    result = tessel.compile_and_simulate(mlp, (x,), arch=args.arch)
    # The driver's check runs the model in JAX on the same inputs: its
    # line reads PASS or FAIL "against JAX", with the largest errors.
    print(f"{result.cycles} cycles on {args.arch}")
    print(result.check)
    if not result.check.passed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
