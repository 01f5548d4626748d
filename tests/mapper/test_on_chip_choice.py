"""The mapper's choice of the results that stay on chip
(tessel.mapper.on_chip): where it keeps one, and the reason it gives where
it does not."""

import torch

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel.compiler.lower import parse_imported
from tessel.ir import Context
from tessel.mapper import (MapperOptions, choose_epilogues, graph, legalize,
                           map_graph)
from tessel.mapper.on_chip import HELD_FRACTION, most_pieces


def mapped(module, x, arch, **options):
    model = fe.import_torch(module.eval(), (x,), name="m")
    target = arch_model.load(arch)
    options = MapperOptions(time_limit_s=10, **options)
    with Context():
        m = parse_imported(model.mlir, target, model.signature)
        legalize(m)
        g = choose_epilogues(graph.from_module(
            m, roles=[a.kind for a in model.signature.args]), target, options)
    return g, map_graph(g, target, "cpsat", options)


def ffn(hidden):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(256, hidden), torch.nn.GELU(),
                               torch.nn.Linear(hidden, 256))


def test_intermediate_kept_and_output_not():
    g, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4")
    matmuls = [op.index for op in g.ops if op.name == "linalg.matmul"]
    assert solution.on_chip == {matmuls[0]}
    notes = "\n".join(solution.notes)
    assert "result on chip, 16384 bytes per tile on 16 tiles" in notes
    assert f"#{matmuls[1]} matmul: result to DRAM: its result is a model output" in notes


def test_not_kept_where_readers_read_many_small_pieces():
    # 8 rows: the second matmul reads each window from 16 tiles.
    g, solution = mapped(ffn(512), torch.randn(8, 256), "tessel-16x16")
    assert not solution.on_chip
    assert f"more than the {most_pieces(arch_model.load('tessel-16x16'))} " \
           "whose setups cost what a DRAM load does" in "\n".join(solution.notes)


def test_not_kept_where_its_part_takes_too_much_sram():
    # 2048 x 4096 floats over 16 tiles: 2 MiB a tile, far above an eighth
    # of 256 KiB.
    g, solution = mapped(ffn(4096), torch.randn(2048, 256), "tessel-4x4")
    assert not solution.on_chip
    sram = arch_model.load("tessel-4x4").tile.sram.bytes
    assert any("result to DRAM" in n and f"of {sram} bytes of SRAM" in n
               for n in solution.notes), solution.notes
    assert sram // HELD_FRACTION < 2048 * 4096 * 4 // 16


def test_off_nothing_is_kept():
    _, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4",
                         on_chip=False)
    assert not solution.on_chip


def test_over_pipeline_stages_nothing_is_kept():
    g, solution = mapped(ffn(512), torch.randn(128, 256), "tessel-4x4",
                         objective="throughput", max_stages=2)
    stages = len(solution.stage_cycles())
    assert (not solution.on_chip) if stages > 1 else solution.on_chip
