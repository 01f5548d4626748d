"""The check the mapper's end-to-end tests end with: a compiled program's
output matches the framework's, and the CPU emulator the simulator's bits."""

import numpy as np

from tessel.runtime.emulator import emulate
from tessel.runtime.simulator import simulate


def assert_matches(program, model, inputs, golden) -> None:
    """``program``, compiled from ``model``, run on ``inputs`` (the model's
    inputs in order) on the simulator gives ``golden`` within the zoo's f32
    tolerance (1e-5 of the output's scale), and the CPU emulator the same
    bits."""
    feeds = {i.name: x for i, x in zip(model.signature.inputs, inputs)}
    name = model.signature.outputs[0].name
    simulated = simulate(program, feeds).outputs[name]
    emulated = emulate(program, feeds, device="cpu").outputs[name]
    assert np.array_equal(simulated.view(np.uint32), emulated.view(np.uint32))
    np.testing.assert_allclose(simulated, golden, rtol=1e-5,
                               atol=1e-5 * np.abs(golden).max())
