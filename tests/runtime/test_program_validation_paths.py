"""ProgramBuilder.build validates the instructions it has just encoded, as
records, without decoding its streams; load_program and Program.validate
decode the streams. Both paths must see the same instructions and raise the
same errors."""

import numpy as np
import pytest

from tessel.runtime import isa
from tessel.runtime.program import ProgramError
from tessel.runtime.validation import _Validator
from tessel.runtime.builder import ProgramBuilder, dram, sram


def build_one(fn, arch="tessel-4x4"):
    b = ProgramBuilder(arch)
    b.add_buffer("x", "input", (64,), "f32")
    b.add_tag("t")
    t = b.tile(0, 0, semaphores=1, tokens=2)
    b.tile(1, 1, semaphores=2)
    fn(t)
    return b.build()


def every_opcode(t):
    t.dma(1, 0, "f32", (4, 16), dram(0, (16, 1)), sram(256, (16, 1)), tag=0)
    t.dma(0, 1, "f32", (16,), sram(256, (1,)), sram(0, (1,), tile=(1, 1)))
    t.wait(0, 1)
    t.signal(1, 1, 1, 3)
    t.wait_semaphore(0, 2)
    t.matmul("f32", 4, 16, 4, (4096, (16, 1)), (8192, (4, 1)), (12288, (4, 1)))
    t.vector_binary("max", "f32", (4, 8), (0, (8, 1)), (128, (0, 1)), (256, (8, 1)))
    # 0.1 is not an f32: the record holds it rounded, as decoding gives it.
    t.vector_binary_imm("div", "bf16", 0.1, (32,), (512, (1,)), (512, (1,)),
                        imm_is_lhs=True)
    t.vector_reduce("add", "f32", (4, 8), 1, (0, (8, 1)), (1024, (1,)))
    t.vector_compare("ne", "f16", (2, 2, 2, 2), (0, (8, 4, 2, 1)),
                     (64, (8, 4, 2, 1)), (128, (8, 4, 2, 1)))
    t.vector_select("f32", (8,), (0, (1,)), (64, (1,)), (128, (1,)), (192, (1,)))
    # Codes for names, a negative stride, a float base and NumPy integers.
    t.vector_unary(2, 0, 0, (8,), (np.int64(28), (-1,)), (2048.0, (np.int32(1),)))
    t.vector_fill("f32", 1.5, (8,), (4096, (1,)))
    # Destinations as tuples and Endpoints, a negative destination stride.
    t.dma_multicast(0, 0, "f16", (2, 8), dram(64, (8, 1)),
                    [("sram", 1, 1, (np.int64(30), (-8, 1))),
                     sram(8192 + 30, (-8, 1))])


def test_built_instructions_are_what_decoding_gives():
    program = build_one(every_opcode)
    built = {(t.row, t.col): program.instructions(t.row, t.col)
             for t in program.tiles}
    for t in program.tiles:
        assert built[(t.row, t.col)] == isa.decode_stream(t.stream)
    ins = built[(0, 0)]
    assert ins[7]["imm"] == float(np.float32(0.1)) != 0.1
    assert ins[11]["op"] == "exp" and ins[11]["in_dtype"] == "f32"
    assert ins[11]["in"] == isa.View(28, (-1,))
    assert all(type(v) is int for v in (ins[11]["in"].base, ins[11]["out"].base,
                                        *ins[11]["out"].strides))
    assert ins[13]["dsts"] == (isa.Endpoint("sram", 1, 1, isa.View(30, (-8, 1))),
                               isa.Endpoint("sram", 0, 0, isa.View(8222, (-8, 1))))
    assert type(ins[13]["dsts"][0].view.base) is int
    # Program.validate decodes the streams; it finds the same instructions.
    program.validate()
    assert program.decoded() == built


def _via_decoding(monkeypatch):
    """Make ProgramBuilder.build validate as the loader does: by decoding."""
    run = _Validator.run
    monkeypatch.setattr(_Validator, "run", lambda self, built=None: run(self))


@pytest.mark.parametrize("emit, fragment", [
    # Encoding does not check the rank of sizes; decoding does.
    (lambda t: t.vector_fill("f32", 0, (), (0, ())), "rank = 0 is out of range"),
    (lambda t: t.vector_fill("f32", 0, (1, 1, 1, 1, 2), (0, (1, 1, 1, 1, 1))),
     "rank = 5 is out of range"),
    (lambda t: t.vector_fill("f32", 1, (16,), (262140, (1,))), "outside [0, 262144)"),
    (lambda t: t.dma(0, 2, "f32", (4,), dram(0, (1,)), sram(0, (1,))), "token 2"),
    (lambda t: t.vector_binary("add", "f32", (8,), (0, (1,)), (64, (1,)), (16, (1,))),
     "lhs and out overlap partially"),
    (lambda t: t.matmul("f32", 8, 32, 8, (0, (32, 1)), (4096, (8, 1)), (8192, (8, 1))),
     "k <= 16"),
    (lambda t: t.wait_semaphore(3), "semaphore 3"),
    (lambda t: t.vector_fill("f32", 0, (4,), (0, (1,)), tag=5),
     "tag 5 is not in the manifest's tags"),
    # The first fault in the second instruction of the stream, and one in
    # the second tile.
    (lambda t: (t.vector_fill("f32", 0, (4,), (0, (1,))),
                t.vector_fill("f32", 0, (4,), (2, (1,)))), "not a multiple"),
    (lambda t: t.signal(1, 1, 2), "semaphore 2 does not exist"),
    # A multicast without destinations is encoded (zero strides) and
    # rejected by validation on both paths.
    (lambda t: t.dma_multicast(0, 0, "f32", (4, 4), dram(0, (4, 1)), []),
     "at least one destination"),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)),
                               [sram(0, (1,), tile=(1, 1)), sram(16, (1,), tile=(1, 1))]),
     "dsts[0] and dsts[1] are both tile (1, 1)"),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,)), [sram(8, (1,))]),
     "overlaps the source"),
    (lambda t: t.dma_multicast(0, 0, "f32", (), dram(0, ()), [sram(0, ())]),
     "rank = 0 is out of range"),
])
def test_building_and_decoding_raise_the_same_error(emit, fragment, monkeypatch):
    with pytest.raises(ProgramError) as built:
        build_one(emit)
    assert fragment in str(built.value)
    _via_decoding(monkeypatch)
    with pytest.raises(ProgramError) as decoded:
        build_one(emit)
    assert str(built.value) == str(decoded.value)
    assert ((built.value.file, built.value.offset, built.value.field)
            == (decoded.value.file, decoded.value.offset, decoded.value.field))


def test_a_repeated_compute_instruction_is_checked_where_it_differs():
    # Compute instructions are checked once per distinct operands; the tag
    # is checked for each.
    def emit(t):
        for tag in (0, 0, 7):
            t.matmul("f32", 4, 16, 4, (0, (16, 1)), (1024, (4, 1)), (2048, (4, 1)),
                     tag=tag)
    with pytest.raises(ProgramError) as info:
        build_one(emit)
    assert "tag 7 is not in the manifest's tags" in str(info.value)
    assert info.value.offset == isa.HEADER_BYTES + 2 * 4 * 20   # 20-word matmuls
