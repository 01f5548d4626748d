"""The mapper's decision in the IR: written as #tessel.mapping, kept by the
legalize passes, lowered into a program that still computes what PyTorch
computes, and faster in simulation than the default mapping."""

import numpy as np

from tessel import arch as arch_model
from tessel.driver import compile_imported
from tessel.ir import Attribute, Context, Module
from tessel.mapper import MapperOptions, apply, graph, legalize, map_module, solve
from tessel.mapper.apply import mapping_text
from tessel.runtime.simulator import simulate


def test_mapping_round_trips_through_the_ir(small_cnn):
    _, _, _, model = small_cnn
    arch = arch_model.load("tessel-4x4")
    with Context():
        m = Module.parse(model.mlir)
        m.operation.attributes["tessel.arch"] = arch.to_attribute()
        g, sol = map_module(m, arch, "cpsat",
                            roles=[a.kind for a in model.signature.args])
        ops = graph._linalg_ops(m.body.operations[0])
        written = [str(op.operation.attributes["tessel.mapping"]) for op in ops]
        expected = [str(Attribute.parse(mapping_text(c, c.op in sol.on_chip)))
                    for c in sol.choices]
        assert written == expected
        # The convolutions' results stay on chip (tessel.mapper.on_chip).
        assert sol.on_chip and any("on_chip" in w for w in written)
        # Legalizing again (the lowering pipeline does) keeps every mapping.
        legalize(m)
        assert [str(op.operation.attributes["tessel.mapping"])
                for op in graph._linalg_ops(m.body.operations[0])] == written


def test_cpsat_mapping_matches_pytorch_and_beats_default(small_cnn):
    case, module, inputs, model = small_cnn
    feeds = {s.name: x.numpy() for s, x in zip(model.signature.inputs, inputs)}
    golden = module(*inputs).detach().numpy()
    cycles = {}
    for mapper in ("default", "cpsat"):
        program = compile_imported(model, "tessel-4x4", mapper=mapper)
        result = simulate(program, feeds)
        np.testing.assert_allclose(result.outputs[model.signature.outputs[0].name],
                                   golden, rtol=case.rtol, atol=case.atol)
        cycles[mapper] = result.cycles
    assert cycles["cpsat"] < cycles["default"]


def _apply(model, mapper, options):
    """Maps ``model`` on tessel-4x4 and writes the mapping: the graph, the
    solution, its choices in op order and each op's written mapping."""
    arch = arch_model.load("tessel-4x4")
    with Context():
        m = Module.parse(model.mlir)
        m.operation.attributes["tessel.arch"] = arch.to_attribute()
        legalize(m)
        g = graph.from_module(m, roles=[a.kind for a in model.signature.args])
        sol = solve(g, arch, mapper, options)
        apply(m, g, sol)
        written = [str(op.operation.attributes["tessel.mapping"])
                   for op in graph._linalg_ops(m.body.operations[0])]
    return g, sol, sorted(sol.choices, key=lambda c: c.op), written


def test_pipeline_mapping_is_written_with_its_stages(small_cnn):
    _, _, _, model = small_cnn
    _, sol, choices, written = _apply(
        model, "heuristic", MapperOptions(objective="throughput", max_stages=2))
    assert len(sol.stage_cycles()) == 2
    assert [("stage = 1" in a) for a in written] == [c.stage == 1 for c in choices]


def test_resident_weights_are_written_for_ops_with_weights(small_cnn):
    _, _, _, model = small_cnn
    g, _, choices, written = _apply(
        model, "cpsat", MapperOptions(objective="throughput", max_stages=2,
                                      resident_weights=True))
    kept = [c.candidate.estimate.resident_bytes > 0 for c in choices]
    assert any(kept)
    assert [(", resident" in a) for a in written] == kept


def test_a_bf16_matmul_truncates_its_accumulator_on_its_slices():
    # A bf16 nn.Linear: the matmul's f32 accumulator, truncated to bf16, is
    # stored by the truncation running on the matmul's slices (a narrowing
    # epilogue), so no f32 result goes through DRAM; the bits are the ones
    # of the unfused program.
    import torch

    from tessel import frontend as fe
    from tessel.frontend.api import torch_to_host

    torch.manual_seed(0)
    module = torch.nn.Linear(256, 256, bias=False).to(torch.bfloat16)
    x = torch.randn(256, 256).to(torch.bfloat16)
    model = fe.import_torch(module, (x,))
    feeds = {model.signature.inputs[0].name: torch_to_host(x)}
    fused = compile_imported(model, "tessel-4x4", mapper="cpsat")
    unfused = compile_imported(model, "tessel-4x4", mapper="default")
    assert [b.kind for b in fused.buffers if b.kind == "scratch"] == []
    assert any(b.kind == "scratch" and b.nbytes == 256 * 256 * 4 for b in unfused.buffers)
    got = simulate(fused, feeds)
    want = simulate(unfused, feeds)
    name = model.signature.outputs[0].name
    assert np.array_equal(got.outputs[name], want.outputs[name])
    assert got.bytes["dram"] < want.bytes["dram"]
