"""Transposes read in place (tessel-transposes-as-views): attention's
queries, keys and values are read through transposed views of the
projection (the keys' transpose across their innermost dimension folded
into the scores' matmul, tessel-transposes-into-matmuls), the merge of the
heads stays a transpose, and the program matches PyTorch, with the CPU
emulator giving the simulator's bits."""

import contextlib

import numpy as np
import torch

from tessel import frontend as fe
from tessel.driver import compile_imported
from tessel.runtime.emulator import emulate
from tessel.runtime.simulator import simulate
from tessel.zoo.models import SelfAttention


def test_heads_read_through_transposed_views():
    torch.manual_seed(0)
    module = SelfAttention(64, 2).eval()
    x = torch.randn(1, 16, 64)
    model = fe.import_torch(module, (x,), name="attention")
    mapped = []

    @contextlib.contextmanager
    def stage(name, compilation):
        yield
        if name == "map":
            mapped.append(compilation.module.operation.get_asm())

    program = compile_imported(model, "tessel-4x4", mapper="cpsat", stage=stage)
    # The queries' and values' head splits are views; so is the keys', its
    # transpose across the innermost dimension folded into the scores'
    # matmul (tessel-transposes-into-matmuls). The heads merged back into
    # rows stay a transpose.
    assert mapped[0].count("tessel.transpose_view") == 3
    assert mapped[0].count("linalg.transpose") == 1

    feeds = {model.signature.inputs[0].name: x.numpy()}
    result = simulate(program, feeds)
    out = result.outputs[model.signature.outputs[0].name]
    np.testing.assert_allclose(out, module(x).detach().numpy(), rtol=1e-4, atol=1e-4)
    emulated = emulate(program, feeds, device="cpu")
    for name, value in result.outputs.items():
        np.testing.assert_array_equal(emulated.outputs[name], value)
