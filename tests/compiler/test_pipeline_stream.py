"""Pipeline stages over a stream of inputs: a program compiled for a stream
computes every input as PyTorch does, each into its own output, and with a
two-stage mapping the stages overlap, so an input costs less than the
program's latency."""

import numpy as np
import pytest
import torch

from test_end_to_end import dram_transfers

from tessel.driver import compile_imported
from tessel.mapper import MapperOptions
from tessel.runtime.simulator import simulate


def _run(case, module, model, program, stream):
    """Simulates ``program`` on ``stream`` different inputs and checks each
    output against PyTorch; returns the cycles."""
    (x,), (y,) = model.signature.inputs, model.signature.outputs
    torch.manual_seed(1)
    xs = [torch.randn(x.shape) for _ in range(stream)]
    feeds = {f"{x.name}[{n}]": xn.numpy() for n, xn in enumerate(xs)}
    result = simulate(program, feeds)
    for n, xn in enumerate(xs):
        with torch.no_grad():
            golden = module(xn).numpy()
        np.testing.assert_allclose(result.outputs[f"{y.name}[{n}]"], golden,
                                   rtol=case.rtol, atol=case.atol,
                                   err_msg=f"input {n} of the stream")
    return result.cycles


def test_pipelined_stream_matches_pytorch_and_overlaps_stages(small_cnn):
    case, module, inputs, model = small_cnn
    options = MapperOptions(objective="throughput", max_stages=2)
    one = compile_imported(model, "tessel-4x4", mapper="cpsat",
                           mapper_options=options)
    three = compile_imported(model, "tessel-4x4", mapper="cpsat",
                             mapper_options=options, stream=3)
    x, y = model.signature.inputs[0].name, model.signature.outputs[0].name
    assert three.inputs == [f"{x}[{n}]" for n in range(3)]
    assert three.outputs == [f"{y}[{n}]" for n in range(3)]
    # Scratch alternates between two copies; weights are shared.
    kinds = {}
    for b in three.buffers:
        kinds.setdefault(b.kind, []).append(b.name)
    assert len(kinds["weight"]) == len([b for b in one.buffers if b.kind == "weight"])
    assert len(kinds["scratch"]) == 2 * len([b for b in one.buffers
                                             if b.kind == "scratch"])

    latency = simulate(one, {x: inputs[0].numpy()}, numerics=False).cycles
    cycles = _run(case, module, model, three, 3)
    # Each input after the first costs one stage, well under the latency of
    # an input (about half with two balanced stages); without overlap it
    # would cost the whole latency.
    interval = (cycles - latency) / 2
    assert interval < 0.7 * latency


def test_stream_without_stages_computes_every_input(small_cnn):
    case, module, _, model = small_cnn
    program = compile_imported(model, "tessel-4x4", stream=2)
    _run(case, module, model, program, 2)


def test_stream_must_be_positive(small_cnn):
    _, _, _, model = small_cnn
    with pytest.raises(ValueError, match="stream must be a positive number"):
        compile_imported(model, "tessel-4x4", stream=0)


def _weight_loads(program) -> int:
    return dram_transfers(program, "weight")[0]


def test_resident_weights_load_once_per_stream(small_cnn):
    case, module, inputs, model = small_cnn
    streamed = MapperOptions(objective="throughput", max_stages=2)
    resident = MapperOptions(objective="throughput", max_stages=2,
                             resident_weights=True)
    one = compile_imported(model, "tessel-4x4", mapper="cpsat",
                           mapper_options=resident)
    three = compile_imported(model, "tessel-4x4", mapper="cpsat",
                             mapper_options=resident, stream=3)
    one_streamed, three_streamed = (
        compile_imported(model, "tessel-4x4", mapper="cpsat",
                         mapper_options=streamed, stream=n) for n in (1, 3))
    # The mapping keeps weights resident: later inputs load none of them,
    # where the streamed mapping loads them again for every input.
    assert _weight_loads(three) == _weight_loads(one) > 0
    assert _weight_loads(three_streamed) == 3 * _weight_loads(one_streamed)
    _run(case, module, model, three, 3)
