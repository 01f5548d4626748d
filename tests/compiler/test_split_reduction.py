"""A reduction loop split across tiles (split-K): each tile computes a
partial product, a reduce adds the partials to the output. The program
still computes what PyTorch computes."""

import dataclasses

import numpy as np
import torch

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel.driver import compile_imported
from tessel.ir import Attribute, Context, Module
from tessel.mapper import graph, legalize
from tessel.runtime.simulator import simulate
from tessel.zoo.models import MLP

SPLIT_K = "#tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [1, 1, 4]>"


def _with_split_k(model, arch):
    """``model`` with each matmul's reduction loop in four parts on a 2x2
    rectangle (written after legalization, which the lowering repeats)."""
    with Context():
        module = Module.parse(model.mlir)
        module.operation.attributes["tessel.arch"] = arch.to_attribute()
        legalize(module)
        matmuls = [op for op in graph._linalg_ops(module.body.operations[0])
                   if op.operation.name == "linalg.matmul"]
        for op in matmuls:
            op.operation.attributes["tessel.mapping"] = Attribute.parse(SPLIT_K)
        del module.operation.attributes["tessel.arch"]
        return dataclasses.replace(model, mlir=str(module)), len(matmuls)


def test_split_k_mlp_matches_pytorch():
    torch.manual_seed(0)
    mlp = MLP(64, 128, 32).eval()
    x = torch.randn(8, 64)
    model = fe.import_torch(mlp, (x,))
    arch = arch_model.load("tessel-4x4")
    split, matmuls = _with_split_k(model, arch)
    assert matmuls == 2
    program = compile_imported(split, arch)
    # Each matmul's four partial results live in a DRAM scratch buffer with
    # one more, innermost, dimension of four.
    partials = [b for b in program.buffers
                if b.kind == "scratch" and b.shape[-1] == 4]
    assert sorted(tuple(b.shape) for b in partials) == [(8, 32, 4), (8, 128, 4)]
    result = simulate(program, {model.signature.inputs[0].name: x.numpy()})
    got = result.outputs[model.signature.outputs[0].name]
    np.testing.assert_allclose(got, mlp(x).detach().numpy(), rtol=1e-5, atol=1e-5)
    # The partials change the order of the additions, not the answer's
    # precision: the unsplit program agrees as closely.
    whole = simulate(compile_imported(model, arch),
                     {model.signature.inputs[0].name: x.numpy()})
    np.testing.assert_allclose(got, whole.outputs[model.signature.outputs[0].name],
                               rtol=1e-5, atol=1e-5)
