"""From PyTorch to simulated outputs: the frontend, the lowering pipeline, the
emitter and the simulator together, against PyTorch eager."""

import contextlib
import dataclasses
import filecmp
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import layers

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel import zoo
from tessel.compiler import lower_to_device
from tessel.driver import compile_imported
from tessel.runtime.emulator import emulate
from tessel.runtime.simulator import simulate
from tessel.zoo.models import MLP


@pytest.fixture(scope="module")
def mlp():
    case = zoo.get("mlp")
    module, inputs = case.build()
    model = fe.import_torch(module, inputs)
    golden = module(*inputs).detach().numpy()
    return case, model, inputs, golden


@pytest.mark.parametrize("arch", ["tessel-4x4", "tessel-16x16"])
def test_mlp_matches_pytorch(mlp, arch):
    case, model, inputs, golden = mlp
    program = compile_imported(model, arch)
    feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, inputs)}
    result = simulate(program, feeds)
    out = result.outputs[model.signature.outputs[0].name]
    np.testing.assert_allclose(out, golden, rtol=case.rtol, atol=case.atol)
    assert result.cycles > 0
    # The DRAM buffers carry the model's names and roles.
    manifest = program.manifest()
    kinds = {b["name"]: b["kind"] for b in manifest["dram"]["buffers"]}
    assert kinds["fc1.weight"] == "weight" and kinds["output"] == "output"
    # Linear layers' weights (out, in) are stored transposed.
    shapes = {b["name"]: b["shape"] for b in manifest["dram"]["buffers"]}
    assert shapes["fc1.weight"] == [64, 128]
    # Per-layer tags name the model's own lines, not PyTorch's.
    tags = [t["name"] for t in manifest["tags"]]
    assert tags and all("zoo/models.py" in t for t in tags), tags
    # The third form of the architecture description: the manifest's holds
    # exactly the target the program was compiled for.
    assert arch_model.Arch.from_dict(manifest["arch"]) == arch_model.load(arch)


def test_small_cnn_matches_pytorch():
    # Convolutions without bias, batchnorm (f64 epsilon truncated inside the
    # body), ReLU, max pooling, flatten and a linear layer with K = 2048.
    case = zoo.get("small_cnn")
    module, inputs = case.build()
    module.eval()
    model = fe.import_torch(module, inputs)
    program = compile_imported(model, "tessel-4x4")
    feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, inputs)}
    out = simulate(program, feeds).outputs[model.signature.outputs[0].name]
    np.testing.assert_allclose(out, module(*inputs).detach().numpy(),
                               rtol=case.rtol, atol=case.atol)


def test_weights_are_not_transposed_on_the_chip(mlp):
    # A transpose lowers to a copy through a memref.transpose view. Marked
    # as weights (the frontend's signature), nn.Linear's weights are stored
    # transposed (`permuted`); unmarked, the matmuls read them as they lie,
    # through their indexing maps (tessel-transposes-into-matmuls). Either
    # way no such copy is left.
    _, model, _, _ = mlp
    marked = lower_to_device(model.mlir, "tessel-4x4", signature=model.signature)
    unmarked = lower_to_device(model.mlir, "tessel-4x4")
    assert "memref.transpose" not in marked
    assert "memref.transpose" not in unmarked
    assert "permuted [1, 0]" in marked
    assert "permuted" not in unmarked


def test_compiling_twice_gives_identical_bytes(mlp, tmp_path):
    _, model, _, _ = mlp
    first = compile_imported(model).save(tmp_path / "a")
    second = compile_imported(model).save(tmp_path / "b")
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    match, mismatch, errors = filecmp.cmpfiles(first, second, [str(f) for f in files],
                                               shallow=False)
    assert not mismatch and not errors


@pytest.mark.parametrize("layer,shapes,tolerance", [
    (layers.Softmax(), [(16, 32)], 1e-6),
    (MLP(32, 64, 32, activation=F.gelu), [(8, 32)], 1e-5),
    (layers.PadConcat(), [(8, 16)], 0.0),
    (layers.ConvBlock(), [(1, 3, 16, 16)], 1e-5),
    (layers.Attention(), [(2, 8, 16), (2, 8, 16)], 1e-6),
    (layers.BatchedLinear(), [(2, 8, 16)], 1e-6),
    (layers.Conv1dBlock(), [(2, 8, 32)], 1e-5),
    (layers.GroupedConv(), [(1, 16, 16, 16)], 1e-5),
], ids=["softmax", "gelu_mlp", "pad_concat", "conv_block", "attention",
        "batched_linear", "conv1d", "grouped_conv"])
def test_layer_matches_pytorch(layer, shapes, tolerance):
    torch.manual_seed(0)
    xs = [torch.randn(*shape) for shape in shapes]
    model = fe.import_torch(layer.eval(), tuple(xs))
    program = compile_imported(model, "tessel-4x4")
    feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, xs)}
    out = simulate(program, feeds).outputs
    golden = layer(*xs).detach().numpy()
    np.testing.assert_allclose(out[model.signature.outputs[0].name], golden,
                               rtol=tolerance, atol=tolerance)


def simulated_bit_exact(program, model, xs):
    """The simulated first output of ``program`` on inputs ``xs`` (those the
    program reads), after checking that the CPU emulator gives the same
    bits."""
    feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, xs)
             if spec.name in program.inputs}
    out_name = model.signature.outputs[0].name
    simulated = simulate(program, feeds).outputs[out_name]
    emulated = emulate(program, feeds, device="cpu").outputs[out_name]
    assert np.array_equal(simulated.view(np.uint32), emulated.view(np.uint32))
    return simulated


def test_rotary_embedding_runs_sin_and_cos_on_the_chip():
    """Rotary embeddings' cos and sin of angles up to 441 radians, computed
    by the vector unit (the ISA's sequences): the result matches PyTorch,
    and the CPU emulator gives the simulator's bits."""
    torch.manual_seed(0)
    layer = layers.Rotary().eval()
    x, positions = torch.randn(64, 32), torch.arange(64).float() * 7.0
    model = fe.import_torch(layer, (x, positions))
    program = compile_imported(model, "tessel-4x4")
    ops = {ins["op"] for instrs in program.decoded().values() for ins in instrs
           if ins.op == "vector_unary"}
    assert {"sin", "cos"} <= ops
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x, positions)),
                               layer(x, positions).numpy(), rtol=1e-5, atol=1e-5)


HEADS = [(1, 4, 8, 16)] * 3


@pytest.mark.parametrize("layer,shapes", [
    (layers.MaskedAttention("causal"), HEADS + [(8, 8)]),
    (layers.MaskedAttention("boolean"), HEADS + [(8, 8)]),
    (layers.MaskedAttention("additive"), HEADS + [(8, 8)]),
    (layers.GroupedQueryAttention(), [(1, 4, 8, 16), (1, 2, 8, 16), (1, 2, 8, 16)]),
    (layers.MultiheadAttention(), [(2, 8, 32)]),
    (layers.EncoderLayer(), [(2, 8, 32)]),
    (layers.RMSNormSwiGLU(), [(8, 32)]),
], ids=["sdpa_causal", "sdpa_boolean_mask", "sdpa_additive_mask", "gqa", "mha",
        "encoder_layer", "rmsnorm_swiglu"])
def test_attention_as_users_write_it(layer, shapes):
    """Attention with its masks (a boolean one with a row masked everywhere,
    whose output PyTorch makes zeros), grouped-query attention, nn modules:
    each matches PyTorch within 1e-5 of the output's scale, and the CPU
    emulator gives the simulator's bits."""
    torch.manual_seed(0)
    xs = [torch.randn(*shape) for shape in shapes]
    if len(xs) == 4:
        xs[3][5] = -1.0       # the boolean mask's row 5: masked everywhere
    model = fe.import_torch(layer.eval(), tuple(xs))
    program = compile_imported(model, "tessel-4x4")
    golden = layer(*xs).detach().numpy()
    # (The causal case reads no mask: the program has no such input.)
    np.testing.assert_allclose(simulated_bit_exact(program, model, xs), golden,
                               rtol=1e-5, atol=1e-5 * np.abs(golden).max())


def dram_reads(program):
    """The transfers of ``program`` that read DRAM (loads and multicasts)."""
    return [ins for instrs in program.decoded().values() for ins in instrs
            if ins.op in ("dma", "dma_multicast") and ins["src"].kind == "dram"]


def with_mappings(model, **mappings):
    """``model`` with ``tessel.mapping`` written on its one op of each kind
    given (``matmul="#tessel.mapping<...>"``), as a mapper would, first in
    the op's attributes where it has some."""
    mlir = model.mlir
    for kind, mapping in mappings.items():
        op = re.compile(rf"linalg\.{kind} (\{{)?")
        assert len(op.findall(mlir)) == 1, kind
        mlir = op.sub(lambda m: f"linalg.{kind} {{tessel.mapping = {mapping}"
                      + (", " if m.group(1) else "} "), mlir)
    return dataclasses.replace(model, mlir=mlir)


@pytest.mark.parametrize("parts,rows,cols", [
    ((1, 1, 4), 2, 2),      # the reduction alone (split-K)
    ((2, 1, 2), 2, 2),      # rows and the reduction
    ((2, 2, 4), 4, 4),      # rows, features and the reduction
], ids=["k", "m_k", "m_n_k"])
def test_split_reduction_matches_pytorch(parts, rows, cols):
    """A matmul mapped by hand with its reduction loop split, alone and
    together with parallel loops: every part's partial product, added up
    by the reduce, gives PyTorch's result."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(256, 64, bias=False).eval()
    x = torch.randn(32, 256)
    model = fe.import_torch(layer, (x,))
    mapping = (f"#tessel.mapping<row = 0, col = 0, rows = {rows}, cols = {cols}, "
               f"parts = [{', '.join(map(str, parts))}]>")
    program = compile_imported(with_mappings(model, matmul=mapping), "tessel-4x4")
    # The mapping was lowered as written: the partials of the k parts.
    assert any(b.kind == "scratch" and tuple(b.shape) == (32, 64, parts[2])
               for b in program.buffers)
    out = simulate(program, {model.signature.inputs[0].name: x.numpy()}).outputs
    golden = layer(x).detach().numpy()
    np.testing.assert_allclose(out[model.signature.outputs[0].name], golden,
                               rtol=1e-5, atol=1e-5)


def dram_transfers(program, kind: str) -> tuple[int, int]:
    """(loads, stores): the dma instructions reading from and writing to the
    DRAM buffers of ``kind``."""
    spans = [(b.offset, b.offset + b.nbytes) for b in program.buffers
             if b.kind == kind]

    def inside(operand) -> bool:
        return operand.kind == "dram" and any(
            lo <= operand.view.base < hi for lo, hi in spans)

    dmas = [ins for instrs in program.decoded().values() for ins in instrs
            if ins.op == "dma"]
    return (sum(inside(ins["src"]) for ins in dmas),
            sum(inside(ins["dst"]) for ins in dmas))


def test_accumulator_stays_in_sram_across_reduction_steps():
    """A matmul whose one part is cut into 8 steps along its reduction:
    its accumulator is set to zero in SRAM before the first step (the zero
    fill is folded into it) and stored after the last (not loaded and
    stored once per step), and the result matches PyTorch."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(256, 64, bias=False).eval()
    x = torch.randn(32, 256)
    model = fe.import_torch(layer, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
               "parts = [1, 1, 1], steps = [32, 64, 32]>")
    # The zero fill before it on the same tile, in one step.
    fill = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
            "parts = [1, 1]>")
    program = compile_imported(with_mappings(model, matmul=mapping, fill=fill),
                               "tessel-4x4")
    weight_loads, _ = dram_transfers(program, "weight")
    output_loads, output_stores = dram_transfers(program, "output")
    assert weight_loads == 8
    # The matmul's result stored once: no fill in DRAM, no load (per step,
    # it would be 8 of each, and the fill's store); in two pieces, each
    # leaving once its columns are final (tessel-early-stores).
    assert (output_loads, output_stores) == (0, 2)
    out = simulate(program, {model.signature.inputs[0].name: x.numpy()}).outputs
    np.testing.assert_allclose(out[model.signature.outputs[0].name],
                               layer(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_first_step_starts_on_the_first_piece_of_its_loads():
    """A 1x1 convolution on one tile of systolic-32x32 in steps of 8 output
    rows: the first step's window is waited for before any compute, so
    tessel-early-loads splits its first block of products into blocks of
    two output rows (its window in four pieces, each waited for before the
    block that reads it); later steps keep whole blocks. The weights, which
    no step changes, are loaded once (tessel-promote-to-sram). The result
    matches PyTorch, and the CPU emulator bit for bit."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(64, 64, 1, bias=False).eval()
    x = torch.randn(1, 64, 16, 16)
    model = fe.import_torch(conv, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
               "parts = [1, 1, 1, 1, 1, 1, 1], steps = [1, 64, 8, 16, 64, 1, 1]>")
    fill = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
            "parts = [1, 1, 1, 1]>")
    program = compile_imported(with_mappings(model, conv_2d_nchw_fchw=mapping,
                                             fill=fill), "systolic-32x32")
    (instrs,) = program.decoded().values()
    rows = [ins["g"] * ins["m"] for ins in instrs
            if ins.op in ("matmul", "matmul_init")]
    assert rows[:4] == [32, 32, 32, 32] and set(rows[4:]) == {128}
    weight_loads, _ = dram_transfers(program, "weight")
    # Once: two pieces, each spread over the tile's two DRAM channels.
    assert weight_loads == 4
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               conv(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_many_shared_steps_loaded_together_and_read_for_crowded_channels():
    """A convolution cut over its output channels on 128 tiles of
    tessel-16x16, two channels a tile, in 32 steps of 16 input channels:
    every tile reads the whole input, multicast step by step, and its own
    weights. Its later steps' loads are issued together
    (tessel-schedule's min-shared-steps), and some tiles on crowded DRAM
    channels have their weights read for them by a tile on an emptier one
    (a dma_multicast to that one tile). The result matches PyTorch, and the
    CPU emulator bit for bit."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(512, 256, 3, padding=1, bias=False).eval()
    x = torch.randn(1, 512, 3, 3)
    model = fe.import_torch(conv, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 8, cols = 16, "
               "parts = [1, 128, 1, 1, 1, 1, 1], "
               "steps = [1, 2, 3, 3, 16, 3, 3], shared>")
    fill = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
            "parts = [1, 1, 1, 1]>")
    program = compile_imported(with_mappings(model, conv_2d_nchw_fchw=mapping,
                                             fill=fill), "tessel-16x16")
    read_for = [ins for instrs in program.decoded().values() for ins in instrs
                if ins.op == "dma_multicast" and len(ins["dsts"]) == 1]
    assert read_for
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               conv(x).detach().numpy(), rtol=1e-5,
                               atol=1e-5 * np.abs(conv(x).detach().numpy()).max())


ARCH_768K = str(Path(__file__).resolve().parents[2]
                / "bench/archs/systolic-32x32-768k.yaml")


def test_stores_go_out_between_the_next_steps_loads():
    """A 512 x 512 x 512 matmul on a tile whose four DMA channels read its
    three DRAM channels, in steps of 256 x 256 x 32: each 256 KB result
    slice would hold up the next step's loads in the channels' queues, so
    tessel-spread-stores issues each of the first three in 15 pieces after
    the next slice's first 15 steps' loads (tessel-split-transfers then
    spreads each piece over the three channels); the last slice, the tile's
    last store with no loads after it, leaves as the array finishes its
    eight blocks of 32 columns (tessel-early-stores), each over the three
    channels. The result matches PyTorch, and the CPU emulator bit for
    bit."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(512, 512, bias=False).eval()
    x = torch.randn(512, 512)
    model = fe.import_torch(layer, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, "
               "parts = [1, 1, 1], steps = [256, 256, 32]>")
    program = compile_imported(with_mappings(model, matmul=mapping), ARCH_768K)
    # At least 15 transfers for each of the first three slices (unspread:
    # 4 x 3 in all), then the last slice's 8 column blocks x 3 channels.
    _, stores = dram_transfers(program, "output")
    assert stores >= 3 * 15 + 8 * 3
    (instrs,) = program.decoded().values()
    last = [ins for ins in instrs if ins.op == "dma"][-8 * 3:]
    assert all(ins["dst"].kind == "dram" and ins["sizes"][-1] == 32 for ins in last)
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               layer(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_a_slice_read_by_more_tiles_than_one_multicast_carries_goes_in_groups():
    """A matmul split by rows over 64 tiles, mapped shared: every tile reads
    the whole weight, more tiles than one dma_multicast carries (58). The
    loads go in two even groups of 32 tiles, each reading it once, and the
    result matches PyTorch."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(64, 32, bias=False).eval()
    x = torch.randn(256, 64)
    model = fe.import_torch(layer, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 8, cols = 8, "
               "parts = [64, 1, 1], shared>")
    program = compile_imported(with_mappings(model, matmul=mapping), "tessel-16x16")
    multicasts = [ins for instrs in program.decoded().values() for ins in instrs
                  if ins.op == "dma_multicast"]
    assert multicasts and {len(ins["dsts"]) for ins in multicasts} == {32}
    weight = next(b for b in program.buffers if b.kind == "weight")
    assert all(weight.offset <= ins["src"].view.base < weight.offset + weight.nbytes
               for ins in multicasts)
    assert sum(4 * np.prod(ins["sizes"]) for ins in multicasts) == 2 * weight.nbytes
    out = simulate(program, {model.signature.inputs[0].name: x.numpy()}).outputs
    np.testing.assert_allclose(out[model.signature.outputs[0].name],
                               layer(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_spatially_split_convolution_reads_each_input_row_once():
    """A 3x3 convolution split over 2 x 2 tiles by output rows and columns,
    mapped shared: each tile's window of the input (128 x 5 x 5 of 8 x 8,
    its 6 x 6 window of the padded input less the border, which it fills
    in SRAM) overlaps its neighbours' by two rows or columns, 36 % of what
    the four windows hold, 4,608 bytes saved per window (more than the
    3,840 one transfer moves in its fixed cost on tessel-4x4, so cutting
    pays). The padded input is never written; the tiles read every element
    of the input from DRAM once, multicasting the rows and columns two or
    four of them read, and the result matches PyTorch, on the CPU emulator
    bit for bit too."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(128, 8, 3, padding=1, bias=False).eval()
    x = torch.randn(1, 128, 8, 8)
    model = fe.import_torch(conv, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, "
               "parts = [1, 1, 2, 2, 1, 1, 1], shared>")
    program = compile_imported(
        with_mappings(model, conv_2d_nchw_fchw=mapping), "tessel-4x4")
    assert not any(b.kind == "scratch" for b in program.buffers)
    inp = next(b for b in program.buffers if b.kind == "input")
    reads = [ins for ins in dram_reads(program)
             if inp.offset <= ins["src"].view.base < inp.offset + inp.nbytes]
    assert sum(4 * np.prod(ins["sizes"]) for ins in reads) == inp.nbytes
    # The middle rows and columns: to two tiles, and the four corners' to all.
    assert sorted(len(ins["dsts"]) for ins in reads
                  if ins.op == "dma_multicast") == [2, 2, 2, 2, 4]
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               conv(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_one_tile_stores_its_output_over_both_its_dram_channels():
    """On systolic-32x32 both DRAM channels are the tile's own: each
    transfer of the 1x1 convolution's output (32 KB and more) goes out as
    two halves on a pair of DMA channels (0 and 1, or 2 and 3: stores take
    the pairs in turn), which read and write DRAM channels 0 and 1, and the
    result matches PyTorch, bit for bit on the CPU emulator."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(32, 128, 1, bias=False).eval()
    x = torch.randn(1, 32, 28, 28)
    model = fe.import_torch(conv, (x,))
    program = compile_imported(model, "systolic-32x32")
    out = next(b for b in program.buffers if b.kind == "output")
    stores = [ins for ins in program.decoded()[(0, 0)]
              if ins.op == "dma" and ins["dst"].kind == "dram"]
    assert sum(4 * np.prod(ins["sizes"]) for ins in stores) == out.nbytes
    assert {ins["channel"] for ins in stores} <= {0, 1, 2, 3}
    assert {ins["channel"] % 2 for ins in stores} == {0, 1}
    assert len(stores) % 2 == 0
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               conv(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_rows_cut_unevenly_still_share_the_weights():
    """197 rows (a ViT's tokens, a prime) over 4 x 4 tiles, 4 parts of rows
    (50, 50, 50 and 47) by 4 of columns, mapped shared: the short part takes
    as many steps as the others, so each column of tiles still reads its
    columns of the weight from DRAM once, and each row of tiles its rows of
    x, and the result matches PyTorch, bit for bit on the CPU emulator."""
    torch.manual_seed(0)
    module = torch.nn.Linear(256, 256, bias=False).eval()
    x = torch.randn(197, 256)
    model = fe.import_torch(module, (x,))
    mapping = ("#tessel.mapping<row = 0, col = 0, rows = 4, cols = 4, "
               "parts = [4, 4, 1], shared>")
    program = compile_imported(with_mappings(model, matmul=mapping), "tessel-4x4")
    reads = sum(4 * np.prod(ins["sizes"]) for ins in dram_reads(program))
    assert reads == (197 * 256 + 256 * 256) * 4
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               module(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_a_matmul_starts_from_zero_in_its_first_blocks_on_a_tile_of_its_own():
    """On systolic-32x32, whose tile has its DRAM channels to itself, a
    matmul's zero fill becomes its first blocks' matmul_init (the fill
    delayed the array there); on tessel-4x4, whose tiles share theirs, it
    stays a vector_fill. The bits are the same and match PyTorch."""
    torch.manual_seed(0)
    module = torch.nn.Linear(256, 128, bias=False).eval()
    x = torch.randn(64, 256)
    model = fe.import_torch(module, (x,))
    golden = module(x).detach().numpy()
    ops = {}
    for arch in ("systolic-32x32", "tessel-4x4"):
        program = compile_imported(model, arch)
        ops[arch] = {ins.op for instrs in program.decoded().values() for ins in instrs}
        np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)), golden,
                                   rtol=1e-5, atol=1e-5)
    assert "matmul_init" in ops["systolic-32x32"]
    assert "vector_fill" not in ops["systolic-32x32"]
    assert "vector_fill" in ops["tessel-4x4"] and "matmul_init" not in ops["tessel-4x4"]


def compile_counting_mapped(model, text):
    """``model`` compiled for tessel-4x4 with CP-SAT, and how often ``text``
    occurs in the module as mapped (a list: one count per mapping)."""
    counts = []

    @contextlib.contextmanager
    def stage(name, compilation):
        yield
        if name == "map":
            counts.append(compilation.module.operation.get_asm().count(text))

    program = compile_imported(model, "tessel-4x4", mapper="cpsat", stage=stage)
    return program, counts


def test_batch_norms_run_as_epilogues_and_the_next_stage_reads_their_results():
    """Each batch norm (with its ReLU, and the residual add) runs on its
    convolution's slices in SRAM: its scale, computed from the running
    variance between the two, is computed before the convolution. The last
    block's batch norm writes a fresh buffer (bufferization gave it the one
    its convolution reads), and the strided convolution after the stage
    reads that one, though its padded view of the buffer was taken before
    the block's convolution."""
    torch.manual_seed(0)
    module = layers.ResidualStage().eval()
    x = torch.randn(1, 16, 16, 16)
    model = fe.import_torch(module, (x,))
    program, marks = compile_counting_mapped(model, "tessel.epilogue")
    assert marks == [4]
    np.testing.assert_allclose(simulated_bit_exact(program, model, (x,)),
                               module(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_and_softmax_keep_their_intermediates_in_sram():
    """After the residual add, the layer norm is its mean, its variance
    (the squared deviations computed in the reduction that sums them) and
    the normalization; the softmax its maximum, the sum of its exponentials
    and the division, both computing the exponentials. Seven ops, no
    tensor of deviations or exponentials between them. (The normalization,
    which reads the norm's weights along the rows, is not computed again in
    each of the softmax's ops.)"""
    torch.manual_seed(0)
    module = layers.NormSoftmax().eval()
    xs = (torch.randn(2, 8, 32), torch.randn(2, 8, 32))
    model = fe.import_torch(module, xs)
    program, generics = compile_counting_mapped(model, "linalg.generic")
    assert generics == [7]
    np.testing.assert_allclose(simulated_bit_exact(program, model, xs),
                               module(*xs).detach().numpy(), rtol=1e-5, atol=1e-5)
