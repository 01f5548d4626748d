"""Every model of the zoo that compiles, on the emulation target: the
outputs are the simulator's, byte for byte, on the CPU path, through the
kernel source built for the host, and on a GPU where there is one. A model
whose lowering fails is skipped with the lowering's error, so a model is
covered as soon as it compiles. The models the frontend marks expensive
(``Case.slow``) run with TESSEL_TEST_FULL_ZOO=1, as in tests/frontend."""

import os

import numpy as np
import pytest

from test_emulator import EXECUTORS, assert_same_bytes, host_kernel, run_on  # noqa: F401

from tessel import zoo
from tessel.cli import random_inputs
from tessel.runtime.simulator import simulate

FULL_ZOO = os.environ.get("TESSEL_TEST_FULL_ZOO") == "1"


@pytest.fixture(scope="module")
def compiled():
    """name -> (program, inputs, the simulator's outputs), or the reason the
    model does not compile."""
    from tessel.compiler import EmitError, LoweringError
    from tessel.driver import compile_imported
    cache = {}

    def get(name):
        if name not in cache:
            model = zoo.run_case(name, "torch", jit=False).model
            try:
                program = compile_imported(model, "tessel-4x4")
            except (LoweringError, EmitError) as e:
                lines = str(e).splitlines()
                first = next((line for line in lines if "error:" in line), lines[0])
                cache[name] = f"{name} does not compile yet: {first.strip()[:300]}"
            else:
                inputs = random_inputs(program, seed=7)
                cache[name] = (program, inputs, simulate(program, inputs).outputs)
        return cache[name]
    return get


def _params():
    for name in zoo.names():
        marks = []
        if zoo.get(name).slow and not FULL_ZOO:
            marks.append(pytest.mark.skip(reason="expensive zoo model; set "
                                          "TESSEL_TEST_FULL_ZOO=1"))
        for executor in EXECUTORS:
            yield pytest.param(name, executor, marks=marks, id=f"{name}-{executor}")


@pytest.mark.parametrize("name, executor", list(_params()))
def test_zoo_model_emulates_bit_for_bit(name, executor, compiled, host_kernel):
    got = compiled(name)
    if isinstance(got, str):
        pytest.skip(got)
    program, inputs, want = got
    outputs = run_on(executor, program, inputs, host_kernel)
    assert_same_bytes(outputs, want)
    assert any(np.size(v) for v in outputs.values())
