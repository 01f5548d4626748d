"""Results kept in the SRAM of the tiles that computed them (``on_chip``):
the mapper's choice, the lowering that keeps them, and the program against
PyTorch, the CPU emulator and the same program with every result in DRAM."""

import numpy as np
import pytest
import torch

from tessel import frontend as fe
from tessel.driver import compile_imported
from tessel.mapper import MapperOptions
from tessel.runtime.emulator import emulate
from tessel.runtime.simulator import simulate


@pytest.fixture(scope="module")
def ffn():
    """A transformer FFN, 128 tokens of 256 features through 512: its
    128 x 512 intermediate (256 KB, 16 KB a tile on tessel-4x4) can stay on
    chip."""
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(),
                                 torch.nn.Linear(512, 256)).eval()
    x = torch.randn(128, 256)
    model = fe.import_torch(module, (x,), name="ffn")
    golden = module(x).detach().numpy()
    feeds = {model.signature.inputs[0].name: x.numpy()}
    return model, feeds, golden


def compile_ffn(model, on_chip: bool):
    return compile_imported(model, "tessel-4x4", mapper="cpsat",
                            mapper_options=MapperOptions(time_limit_s=10,
                                                         on_chip=on_chip))


def test_intermediate_stays_on_chip(ffn):
    model, feeds, golden = ffn
    kept, stored = compile_ffn(model, True), compile_ffn(model, False)
    # The intermediate has no DRAM buffer: nothing stores it.
    scratch = lambda p: [b for b in p.manifest()["dram"]["buffers"]  # noqa: E731
                         if b["kind"] == "scratch"]
    assert scratch(stored) and not scratch(kept)

    result = simulate(kept, feeds)
    out = result.outputs[model.signature.outputs[0].name]
    np.testing.assert_allclose(out, golden, rtol=1e-4, atol=1e-4)
    # The CPU emulator computes the same bits.
    emulated = emulate(kept, feeds, device="cpu")
    for name, value in result.outputs.items():
        np.testing.assert_array_equal(emulated.outputs[name], value)
    # The same bits as with the intermediate in DRAM, in fewer cycles.
    baseline = simulate(stored, feeds)
    for name, value in result.outputs.items():
        np.testing.assert_array_equal(baseline.outputs[name], value)
    assert result.cycles < baseline.cycles


def test_compiles_are_byte_identical(ffn, tmp_path):
    model, _, _ = ffn
    a, b = compile_ffn(model, True), compile_ffn(model, True)
    a.save(tmp_path / "a")
    b.save(tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a")
                   for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files
    for path in files:
        assert (tmp_path / "a" / path).read_bytes() == \
            (tmp_path / "b" / path).read_bytes(), path


def test_a_stream_keeps_each_inputs_intermediate(ffn):
    # Two inputs one after another: each keeps its own intermediate on chip
    # (one scratch buffer per input, erased), and both match PyTorch.
    model, feeds, golden = ffn
    program = compile_imported(model, "tessel-4x4", mapper="cpsat",
                               mapper_options=MapperOptions(time_limit_s=10),
                               stream=2)
    assert not [b for b in program.manifest()["dram"]["buffers"]
                if b["kind"] == "scratch"]
    (name, x), = feeds.items()
    second = x[::-1].copy()
    result = simulate(program, {f"{name}[0]": x, f"{name}[1]": second})
    out = model.signature.outputs[0].name
    np.testing.assert_allclose(result.outputs[f"{out}[0]"], golden,
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(result.outputs[f"{out}[1]"], golden[::-1],
                               rtol=1e-4, atol=1e-4)
