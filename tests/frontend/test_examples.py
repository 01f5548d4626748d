"""Every example of examples/frontends runs on its own, prints PASS and
exits cleanly: each compiles its model (PyTorch with a custom op, Keras 3,
TensorFlow, JAX), simulates it and compares the outputs with its own
framework's. Each runs
as a script of its own, as a user runs it; an example whose framework (an
optional extra) is not installed is skipped."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "frontends"

# The package each example needs beyond the frontend's.
NEEDS = {"keras_mlp.py": "keras", "tensorflow_cnn.py": "tf2onnx", "jax_mlp.py": "jax2onnx",
         "custom_op.py": "torch"}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(NEEDS)


@pytest.mark.parametrize("example", sorted(NEEDS))
def test_example_passes(example):
    if importlib.util.find_spec(NEEDS[example]) is None:
        pytest.skip(f"{NEEDS[example]} is not installed")
    done = subprocess.run([sys.executable, str(EXAMPLES / example)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert any(line.startswith("PASS") for line in done.stdout.splitlines()), done.stdout[-2000:]
