"""The program format: builder, writer, loader, validation, disassembler."""

import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from tessel.runtime import isa
from tessel.runtime.disasm import disassemble
from tessel.runtime.program import ProgramError
from tessel.runtime.loader import load_program
from tessel.runtime.builder import ProgramBuilder, dram, sram


def small_program(arch="tessel-4x4"):
    b = ProgramBuilder(arch)
    x = b.add_buffer("x", "input", (16, 16), "f32")
    w = b.add_buffer("w", "weight", (16, 16), "f32",
                     data=np.arange(256, dtype=np.float32).reshape(16, 16))
    y = b.add_buffer("y", "output", (16, 16), "f32")
    fc = b.add_tag("fc1", op="linalg.matmul", loc="model.py:12:0")
    t = b.tile(0, 0, semaphores=1, tokens=2)
    t.dma(0, 0, "f32", (16, 16), src=dram(x.offset, (16, 1)), dst=sram(0, (16, 1)),
          tag=fc)
    t.dma(1, 1, "f32", (16, 16), src=dram(w.offset, (16, 1)),
          dst=sram(1024, (16, 1)), tag=fc)
    t.wait(0, 1)
    t.vector_fill("f32", 0.0, (16, 16), (2048, (16, 1)), tag=fc)
    t.matmul("f32", 16, 16, 16, (0, (16, 1)), (1024, (16, 1)), (2048, (16, 1)), tag=fc)
    t.vector_unary("exp", "f32", "f32", (16, 16), (2048, (16, 1)), (2048, (16, 1)))
    t.dma(0, 0, "f32", (16, 16), src=sram(2048, (16, 1)), dst=dram(y.offset, (16, 1)))
    t.wait([0])
    return b.build()


def test_round_trip_is_byte_identical(tmp_path):
    p = small_program()
    p.save(tmp_path / "prog")
    q = load_program(tmp_path / "prog")
    assert q.manifest() == p.manifest()
    assert q.tile(0, 0).stream == p.tile(0, 0).stream
    assert q.dram_image == p.dram_image
    assert [i.op for i in q.instructions(0, 0)] == [
        "dma", "dma", "wait", "vector_fill", "matmul", "vector_unary", "dma", "wait"]
    m = json.loads((tmp_path / "prog" / "manifest.json").read_text())
    assert m["format"] == "tessel-program" and m["version"] == 2
    assert m["tiles"][0]["instructions"] == 8
    # Weights are in the image at their offset.
    w = p.buffer("w")
    img = np.frombuffer(q.dram_image[w.offset:w.offset + w.nbytes], np.float32)
    assert img[17] == 17.0


def test_encoding_is_deterministic(tmp_path):
    a, b = small_program(), small_program()
    a.save(tmp_path / "a")
    b.save(tmp_path / "b")
    for rel in ("manifest.json", "dram.bin", "tiles/r0c0.bin"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    m = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert sorted(m["sha256"]) == ["dram.bin", "tiles/r0c0.bin"]


def test_save_replaces_atomically(tmp_path):
    small_program().save(tmp_path / "p")
    small_program().save(tmp_path / "p")
    assert sorted(os.listdir(tmp_path)) == ["p"]


def test_save_ignores_stale_temporaries_and_replaces_another_program(tmp_path):
    # Leftovers of an interrupted save, under the names an earlier version
    # used, do not stop a save and are not touched.
    stale = [f".p.old.{os.getpid()}", ".p.abc123"]
    for name in stale:
        (tmp_path / name).mkdir()
        (tmp_path / name / "x").write_text("stale")
    small_program().save(tmp_path / "p")
    other = ProgramBuilder("tessel-4x4")
    other.add_buffer("z", "input", (4,), "f32")
    other.tile(1, 1).vector_fill("f32", 2.0, (4,), (0, (1,)))
    other.build().save(tmp_path / "p")
    assert sorted(os.listdir(tmp_path)) == sorted(stale + ["p"])
    assert sorted(os.listdir(tmp_path / "p" / "tiles")) == ["r1c1.bin"]
    assert load_program(tmp_path / "p").inputs == ["z"]
    for name in stale:
        assert (tmp_path / name / "x").read_text() == "stale"


def test_save_keeps_the_old_program_when_renaming_in_fails(tmp_path, monkeypatch):
    small_program().save(tmp_path / "p")
    before = (tmp_path / "p" / "manifest.json").read_text()
    real = os.rename
    calls = []

    def failing(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:                      # the new program into place
            raise OSError("disk on fire")
        return real(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OSError, match="disk on fire"):
        small_program("systolic-32x32").save(tmp_path / "p")
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["p"]
    assert (tmp_path / "p" / "manifest.json").read_text() == before
    load_program(tmp_path / "p")


def test_save_does_not_replace_what_is_not_a_program(tmp_path):
    (tmp_path / "file").write_text("data")
    with pytest.raises(FileExistsError, match="not a program directory"):
        small_program().save(tmp_path / "file")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="without a manifest.json"):
        small_program().save(tmp_path / "dir")
    assert (tmp_path / "dir" / "notes.txt").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["dir", "file"]
    (tmp_path / "empty").mkdir()
    small_program().save(tmp_path / "empty")
    load_program(tmp_path / "empty")


def test_header_word_layout():
    words = isa.encode("signal", {"row": 1, "col": 2, "semaphore": 3, "count": 4}, tag=7)
    assert words == [0x03 | (5 << 8) | (7 << 16), 1, 2, 3, 4]
    words = isa.encode("wait_semaphore", {"semaphore": 0, "count": 1})
    assert words[0] >> 16 == 0xFFFF


def test_every_opcode_round_trips_through_the_decoder():
    p = small_program()
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(1, 1, semaphores=2, tokens=1)
    b.tile(0, 0, semaphores=1)
    t.signal(0, 0, 0, 3)
    t.wait_semaphore(1, 2)
    t.vector_binary("max", "f32", (4, 8), (0, (8, 1)), (128, (0, 1)), (256, (8, 1)))
    t.vector_binary_imm("div", "bf16", 2.5, (32,), (512, (1,)), (512, (1,)),
                        imm_is_lhs=True)
    t.vector_reduce("add", "f32", (4, 8), 1, (0, (8, 1)), (1024, (1,)))
    t.vector_compare("ne", "f16", (2, 2, 2, 2), (0, (8, 4, 2, 1)),
                     (64, (8, 4, 2, 1)), (128, (8, 4, 2, 1)))
    t.vector_select("f32", (8,), (0, (1,)), (64, (1,)), (128, (1,)), (192, (1,)))
    t.vector_unary("cast", "f32", "bf16", (8,), (0, (1,)), (2048, (1,)))
    prog = b.build()
    ins = prog.instructions(1, 1)
    assert ins[0].fields == {"row": 0, "col": 0, "semaphore": 0, "count": 3}
    assert ins[2]["rhs"] == isa.View(128, (0, 1))
    assert ins[3]["imm"] == 2.5 and ins[3]["imm_is_lhs"] == 1
    assert ins[4]["out"] == isa.View(1024, (1,))
    assert ins[7]["out_dtype"] == "bf16"
    assert p.num_instructions == 8


def _sample_fields(op, rank):
    """Fields of ``op`` with ``sizes`` of ``rank`` dimensions, every value
    distinct from its neighbours' so that a misplaced word shows."""
    counter = iter(range(1, 1000))
    fields = {}
    for name, kind, table, view_rank, rank_delta, _ in isa._PLANS[op]:
        vr = view_rank if view_rank is not None else rank + rank_delta
        view = isa.View(8 * next(counter), tuple(-next(counter) for _ in range(vr)))
        if kind == "view":
            fields[name] = view
        elif kind == "endpoint":
            fields[name] = isa.Endpoint("dram", 0, 0, view)
        elif kind == "multicast":
            fields[name] = (isa.Endpoint("sram", 1, 2, view),)
        elif kind == "sizes":
            fields[name] = tuple(next(counter) for _ in range(rank))
        elif kind == "tokens":
            fields[name] = tuple(next(counter) for _ in range(rank))
        elif kind in ("dtype", "enum"):
            fields[name] = table[next(counter) % len(table)]
        elif kind == "f32":
            fields[name] = 0.5 * next(counter)
        elif kind == "i32":
            fields[name] = -next(counter)
        else:
            fields[name] = next(counter)
    return fields


def _word_of(op, rank, index):
    """The word that operand ``index`` of ``op`` starts at, as
    :func:`_sample_fields` lays it out."""
    position = 1
    for name, kind, _, view_rank, rank_delta, _ in isa._PLANS[op][:index]:
        vr = view_rank if view_rank is not None else rank + rank_delta
        position += {"view": 2 + vr, "endpoint": 5 + vr, "sizes": 1 + rank,
                     "tokens": 1 + rank, "multicast": rank + 1 + 4}.get(kind, 1)
    return position


def _stream(words_list):
    body = [w for words in words_list for w in words]
    return (isa.MAGIC + struct.pack("<HHII", isa.VERSION, 0, len(words_list), len(body))
            + struct.pack(f"<{len(body)}I", *body))


def test_the_layout_decoders_give_what_the_general_decoder_gives():
    """decode_stream reads each (opcode, length) through a decoder made for
    its layout: every opcode at every rank decodes as decode_instruction
    decodes it, and words that break a rule raise its error."""
    for op in isa.LAYOUTS:
        for rank in range(1, isa.MAX_RANK + 1):
            words = isa.encode(op, _sample_fields(op, rank), tag=rank)
            has_layout = isa._fast_decoder(isa.OPCODES[op], len(words)) is not None
            assert has_layout == (op != "dma_multicast"), (op, rank)
            # The same operands twice, under another tag: the second shares
            # the first's fields.
            again = isa.encode(op, _sample_fields(op, rank))
            first, second = isa.decode_stream(_stream([words, again]))
            assert [first, second] == [
                isa.decode_instruction(words, 0, isa.HEADER_BYTES),
                isa.decode_instruction(again, 0, isa.HEADER_BYTES + 4 * len(words))
            ], (op, rank)
            assert (second.fields is first.fields) == has_layout
            general = [i for i, (_, kind, *_) in enumerate(isa._PLANS[op])
                       if kind in ("dtype", "enum", "sizes", "tokens")]
            # Each code, rank and count word made wrong in turn.
            for index in general:
                bad = list(words)
                bad[_word_of(op, rank, index)] = 0xFFFF
                with pytest.raises(isa.DecodeError) as fast:
                    isa.decode_stream(_stream([bad]))
                with pytest.raises(isa.DecodeError) as slow:
                    isa.decode_instruction(bad, 0, isa.HEADER_BYTES)
                assert str(fast.value) == str(slow.value), (op, rank, index)


# ---- rejection -----------------------------------------------------------

def strip_digests(path):
    """The program at ``path`` as one written without digests, which loads
    unchecked: what the validator behind them rejects is then visible."""
    m = json.loads((path / "manifest.json").read_text())
    del m["sha256"], m["manifest_sha256"]
    (path / "manifest.json").write_text(json.dumps(m))


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "prog"
    small_program().save(path)
    strip_digests(path)
    return path


@pytest.fixture
def sealed(tmp_path):
    path = tmp_path / "sealed"
    small_program().save(path)
    return path


def test_a_changed_byte_anywhere_is_named(sealed):
    # A flipped bit in an immediate decodes and validates, and would
    # compute something else: the digest names the file instead.
    s = sealed / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    data[-1] ^= 0x01
    s.write_bytes(bytes(data))
    e = rejects(sealed, "tiles/r0c0.bin", "SHA-256 does not match", "compile the "
                "program again")
    assert e.file == "tiles/r0c0.bin"
    small_program().save(sealed)
    image = sealed / "dram.bin"
    image.write_bytes(image.read_bytes()[:-4])
    assert rejects(sealed, "dram.bin", "truncated").file == "dram.bin"


def test_digests_go_unchecked_only_when_asked(sealed):
    # emit_program reads back what it has just written: the same checks but
    # the digests, which guard files against later changes.
    image = sealed / "dram.bin"
    data = bytearray(image.read_bytes())
    data[0] ^= 0x01
    image.write_bytes(bytes(data))
    rejects(sealed, "dram.bin", "SHA-256 does not match")
    assert load_program(sealed, check_digests=False).dram_image == bytes(data)


def test_an_edited_manifest_is_named(sealed):
    m = json.loads((sealed / "manifest.json").read_text())
    m["tiles"][0]["tokens"] += 1
    (sealed / "manifest.json").write_text(json.dumps(m, indent=3))
    rejects(sealed, "manifest.json", "manifest_sha256", "edited")
    # Formatting is not content: the same manifest reindented loads.
    small_program().save(sealed)
    m = json.loads((sealed / "manifest.json").read_text())
    (sealed / "manifest.json").write_text(json.dumps(m, indent=7))
    load_program(sealed)


def rejects(path, *fragments):
    with pytest.raises(ProgramError) as info:
        load_program(path)
    msg = str(info.value)
    for f in fragments:
        assert f in msg, msg
    return info.value


def edit_manifest(path, fn):
    m = json.loads((path / "manifest.json").read_text())
    fn(m)
    (path / "manifest.json").write_text(json.dumps(m))


def test_rejects_a_truncated_stream(saved):
    s = saved / "tiles/r0c0.bin"
    s.write_bytes(s.read_bytes()[:-6])
    e = rejects(saved, "tiles/r0c0.bin", "truncated")
    assert e.file == "tiles/r0c0.bin"


def test_rejects_an_instruction_cut_short(saved):
    s = saved / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    n = (len(data) - 16) // 4 - 2                    # drop the last two words
    data = data[:16 + 4 * n]
    struct.pack_into("<I", data, 12, n)
    s.write_bytes(bytes(data))
    rejects(saved, "tiles/r0c0.bin", "offset", "stream ends after")


def test_rejects_an_unknown_opcode(saved):
    s = saved / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    data[16] = 0x7E
    s.write_bytes(bytes(data))
    e = rejects(saved, "unknown opcode 0x7e", "offset 16")
    assert e.offset == 16


def test_rejects_a_length_that_disagrees(saved):
    s = saved / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    first = isa.decode_stream(bytes(data))
    off = first[2].offset                            # wait tok0 tok1: 4 words
    data[off + 1] = 3
    s.write_bytes(bytes(data))
    rejects(saved, f"offset {off}", "wait")


def test_rejects_a_wrong_version(saved):
    edit_manifest(saved, lambda m: m.update(version=1))
    rejects(saved, "manifest.json", "version", "version 1 is not supported",
            "supported: 2")
    small_program().save(saved)
    strip_digests(saved)
    s = saved / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    data[4] = 9
    s.write_bytes(bytes(data))
    rejects(saved, "tiles/r0c0.bin", "version 9")


def test_rejects_a_tile_outside_the_grid(saved):
    edit_manifest(saved, lambda m: m["tiles"][0].update(row=4))
    rejects(saved, "manifest.json", "tiles[0]", "outside the 4x4 grid")


def test_rejects_overlapping_buffers(saved):
    edit_manifest(saved, lambda m: m["dram"]["buffers"][1].update(offset=512))
    rejects(saved, "manifest.json", "dram.buffers", "overlap")


def test_rejects_a_buffer_beyond_dram(saved):
    edit_manifest(saved, lambda m: m["dram"].update(bytes=2048))
    rejects(saved, "does not fit dram.bytes")


def test_rejects_a_missing_stream_and_bad_json(saved):
    (saved / "tiles/r0c0.bin").unlink()
    rejects(saved, "tiles[0].stream", "does not exist")
    (saved / "manifest.json").write_text("{")
    rejects(saved, "manifest.json", "not valid JSON")


def test_rejects_a_bad_arch_naming_the_field(saved):
    edit_manifest(saved, lambda m: m["arch"]["tile"]["sram"].update(alignment=48))
    rejects(saved, "arch.tile.sram.alignment")


def test_rejects_an_instruction_count_mismatch(saved):
    edit_manifest(saved, lambda m: m["tiles"][0].update(instructions=3))
    rejects(saved, "tiles[0].instructions", "says 3")


# The type of every manifest field (docs/isa.md). Paths index into the
# manifest of small_program(); "[]" marks one item of a list.
MANIFEST_FIELDS = {
    "format": str, "version": int, "arch": dict, "dram": dict,
    "inputs": list, "outputs": list, "tiles": list, "tags": list,
    "dram.bytes": int, "dram.image": str, "dram.buffers": list,
    "dram.buffers[0]": dict, "dram.buffers[0].name": str,
    "dram.buffers[0].kind": str, "dram.buffers[0].offset": int,
    "dram.buffers[0].shape": list, "dram.buffers[0].dtype": str,
    "tiles[0]": dict, "tiles[0].row": int, "tiles[0].col": int,
    "tiles[0].stream": str, "tiles[0].instructions": int,
    "tiles[0].semaphores": list, "tiles[0].tokens": int,
    "tags[0]": dict, "tags[0].id": int, "tags[0].name": str,
    "tags[0].op": str, "tags[0].loc": str,
}
# Items of lists: a wrong item type names the list.
MANIFEST_ITEMS = {"inputs": str, "outputs": str, "dram.buffers[0].shape": int,
                  "tiles[0].semaphores": int}
OPTIONAL_FIELDS = {"tags", "tags[0].op", "tags[0].loc"}
JSON_VALUES = [5, -1, 1.5, True, None, "s", "", [], [1], {}, {"a": 1}]


def _split(path):
    parts = []
    for name in path.split("."):
        if name.endswith("]"):
            name, index = name[:-1].split("[")
            parts += [name, int(index)]
        else:
            parts.append(name)
    return parts


def _set(m, path, value, delete=False):
    *parent, leaf = _split(path)
    for p in parent:
        m = m[p]
    if delete:
        del m[leaf]
    else:
        m[leaf] = value


def _is(value, kind):
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _load_edited(saved, original, path, value, delete=False):
    m = json.loads(original)
    _set(m, path, value, delete)
    (saved / "manifest.json").write_text(json.dumps(m))
    return load_program(saved)


def test_manifest_field_types_are_checked(saved):
    """Each field given a value of another type, or removed, is a
    ProgramError naming that field, never another exception."""
    original = (saved / "manifest.json").read_text()
    checked = 0
    for path, kind in MANIFEST_FIELDS.items():
        for value in JSON_VALUES:
            if _is(value, kind):
                continue
            with pytest.raises(ProgramError) as info:
                _load_edited(saved, original, path, value)
            assert info.value.file == "manifest.json", (path, value)
            assert info.value.field == path, (path, value, str(info.value))
            checked += 1
        if path in OPTIONAL_FIELDS or path.endswith("]"):
            continue
        with pytest.raises(ProgramError) as info:
            _load_edited(saved, original, path, None, delete=True)
        assert info.value.field == path and "is missing" in str(info.value)
    for path, kind in MANIFEST_ITEMS.items():
        for value in JSON_VALUES:
            if _is(value, kind):
                continue
            with pytest.raises(ProgramError) as info:
                _load_edited(saved, original, f"{path}[0]", value)
            assert info.value.field == path, (path, value, str(info.value))
            assert "item 0" in str(info.value)
    assert checked > 200
    # The optional fields may be left out.
    for path in OPTIONAL_FIELDS - {"tags"}:
        _load_edited(saved, original, path, None, delete=True)


def test_manifest_fuzz_raises_only_program_errors(saved):
    """Random values at random places of the manifest (the arch included):
    the loader accepts the program or raises ProgramError, nothing else."""
    original = (saved / "manifest.json").read_text()
    rng = np.random.default_rng(0)

    def nodes(obj, path=()):
        yield path
        items = (obj.items() if isinstance(obj, dict) else
                 enumerate(obj) if isinstance(obj, list) else ())
        for k, v in items:
            yield from nodes(v, path + (k,))

    paths = [p for p in nodes(json.loads(original)) if p]
    values = JSON_VALUES + [2 ** 40, -2 ** 40, 0, 1e300, "f32", "input",
                            [[]], [{"a": []}], "../x", "/etc/passwd"]
    outcomes = {"accepted": 0, "rejected": 0}
    for _ in range(300):
        m = json.loads(original)
        for _ in range(int(rng.integers(1, 4))):
            path = paths[int(rng.integers(len(paths)))]
            node = m
            try:
                for p in path[:-1]:
                    node = node[p]
                node[path[-1]] = values[int(rng.integers(len(values)))]
            except (KeyError, IndexError, TypeError):
                continue              # an earlier edit replaced the parent
        (saved / "manifest.json").write_text(json.dumps(m))
        try:
            load_program(saved)
            outcomes["accepted"] += 1
        except ProgramError:
            outcomes["rejected"] += 1
    assert outcomes["rejected"] > 250


def build_one(fn, arch="tessel-4x4"):
    b = ProgramBuilder(arch)
    b.add_buffer("x", "input", (64,), "f32")
    t = b.tile(0, 0, semaphores=1, tokens=1)
    b.tile(1, 1, semaphores=1)
    fn(t)
    return b.build()


@pytest.mark.parametrize("emit, fragments", [
    (lambda t: t.vector_fill("f32", 1, (16,), (262140, (1,))), ("outside [0, 262144)",)),
    (lambda t: t.dma(0, 0, "f32", (64,), dram(0, (2,)), sram(0, (1,))),
     ("src", "outside [0, 256)")),
    (lambda t: t.dma(0, 1, "f32", (4,), dram(0, (1,)), sram(0, (1,))), ("token 1",)),
    (lambda t: t.dma(2, 0, "f32", (4,), dram(0, (1,)), sram(0, (1,))), ("channel 2",)),
    (lambda t: t.dma(0, 0, "f32", (4,), dram(0, (1,)), sram(0, (1,), tile=(1, 1))),
     ("neither endpoint",)),
    (lambda t: t.vector_binary("add", "f32", (8,), (0, (1,)), (64, (1,)), (16, (1,))),
     ("lhs and out overlap partially",)),
    (lambda t: t.vector_fill("f32", 0, (4, 4), (0, (1, 1))), ("addresses an element twice",)),
    (lambda t: t.vector_fill("f32", 0, (4,), (2, (1,))), ("not a multiple",)),
    (lambda t: t.matmul("f32", 8, 32, 8, (0, (32, 1)), (4096, (8, 1)), (8192, (8, 1))),
     ("k <= 16",)),
    # Groups of rows: acc's groups may not overlap, and an output-stationary
    # block holds all of them.
    (lambda t: t.matmul("f32", 4, 8, 8, (0, (32, 8, 1)), (4096, (8, 1)),
                        (8192, (16, 8, 1)), g=3), ("acc", "addresses an element twice")),
    # Exact aliases are allowed of matmul, not of matmul_init (acc starts at 0).
    (lambda t: t.matmul("f32", 8, 8, 8, (0, (8, 1)), (4096, (8, 1)), (0, (8, 1)),
                        init=True),
     ("lhs and acc overlap: matmul_init starts acc at zero",)),
    (lambda t: t.vector_unary("exp", "f32", "f16", (4,), (0, (1,)), (64, (1,))),
     ("in_dtype = out_dtype",)),
    (lambda t: t.wait_semaphore(3), ("semaphore 3",)),
    (lambda t: t.signal(2, 2, 0), ("runs no code",)),
    (lambda t: t.vector_reduce("add", "f32", (4, 4), 2, (0, (4, 1)), (64, (1,))),
     ("dim 2",)),
    (lambda t: t.vector_binary("add", "i8", (4,), (0, (1,)), (4, (1,)), (8, (1,))),
     ("does not support i8",)),
    # dma_multicast: each rule of docs/isa.md, naming the field.
    (lambda t: t.dma_multicast(2, 0, "f32", (4,), dram(0, (1,)), [sram(0, (1,))]),
     ("channel", "channel 2 is not below")),
    (lambda t: t.dma_multicast(0, 1, "f32", (4,), dram(0, (1,)), [sram(0, (1,))]),
     ("token", "token 1 is not below")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4, 0), dram(0, (1, 1)),
                               [sram(0, (1, 1))]), ("sizes", "at least 1")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,), tile=(1, 1)),
                               [sram(0, (1,))]),
     ("src", "the source is DRAM or the issuing tile (0, 0)'s SRAM, not tile (1, 1)'s")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,),
                               isa.Endpoint("dram", 0, 1, isa.View(0, (1,))),
                               [sram(0, (1,))]), ("src", "row = col = 0")),
    (lambda t: t.dma_multicast(0, 0, "f32", (128,), dram(0, (1,)), [sram(0, (1,))]),
     ("src", "outside [0, 256)")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)), []),
     ("dsts", "at least one destination")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)),
                               [sram(0, (1,)), sram(0, (1,), tile=(4, 0))]),
     ("dsts[1]", "tile (4, 0) lies outside the 4x4 grid")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)),
                               [sram(0, (1,), tile=(1, 1)), sram(0, (1,)),
                                sram(64, (1,), tile=(1, 1))]),
     ("dsts[2]", "dsts[0] and dsts[2] are both tile (1, 1)")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)),
                               [sram(0, (1,)), sram(262140, (1,), tile=(1, 1))]),
     ("dsts[1]", "outside [0, 262144)")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), dram(0, (1,)),
                               [sram(2, (1,), tile=(1, 1))]),
     ("dsts[0]", "not a multiple")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4, 4), dram(0, (4, 1)),
                               [sram(0, (1, 1)), sram(0, (1, 1), tile=(1, 1))]),
     ("dsts[0]", "addresses an element twice")),
    # A destination on the source's tile may not touch the source at all,
    # an exact alias included.
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,)),
                               [sram(0, (1,), tile=(1, 1)), sram(12, (1,))]),
     ("dsts[1]", "overlaps the source")),
    (lambda t: t.dma_multicast(0, 0, "f32", (4,), sram(64, (1,)),
                               [sram(64, (1,)), sram(0, (1,), tile=(1, 1))]),
     ("dsts[0]", "overlaps the source")),
])
def test_rejects_bad_instructions(emit, fragments):
    with pytest.raises(ProgramError) as info:
        build_one(emit)
    msg = str(info.value)
    assert "tiles/r0c0.bin" in msg and "offset 16" in msg
    for f in fragments:
        assert f in msg, msg


def test_a_multicast_next_to_its_source_on_its_tile_is_valid():
    # Even elements from the source, odd ones the destination: no byte shared.
    program = build_one(lambda t: t.dma_multicast(
        0, 0, "f32", (8,), sram(0, (2,)), [sram(4, (2,)), sram(4, (2,), tile=(1, 1))]))
    ins = program.instructions(0, 0)[0]
    assert ins["dsts"] == (isa.Endpoint("sram", 0, 0, isa.View(4, (2,))),
                           isa.Endpoint("sram", 1, 1, isa.View(4, (2,))))


def test_interleaved_views_are_not_an_overlap():
    # Even and odd elements of one buffer: extents intersect, elements do not.
    build_one(lambda t: t.vector_binary("add", "f32", (8,), (0, (2,)), (0, (2,)),
                                        (4, (2,))))


def test_builder_names_a_bad_operand():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0)
    with pytest.raises(ValueError, match="vector_unary.op = 'expp'"):
        t.vector_unary("expp", "f32", "f32", (4,), (0, (1,)), (0, (1,)))
    with pytest.raises(ValueError, match="has 1 strides"):
        t.matmul("f32", 1, 1, 1, (0, (1,)), (0, (1, 1)), (0, (1, 1)))
    # A multicast's destinations are SRAM endpoints sharing their strides
    # (the encoding holds them once), and fit the 8-bit length.
    with pytest.raises(ValueError, match=r"dma_multicast.dsts\[1\] is a dram endpoint"):
        t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,)), [sram(0, (1,), tile=(0, 1)),
                                                          dram(0, (1,))])
    with pytest.raises(ValueError, match=r"dsts\[2\].view.strides = \[2\] differ from "
                                         r"dma_multicast.dsts\[0\]'s \[1\]"):
        t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,)),
                        [sram(0, (1,), tile=(0, c)) for c in (1, 2)]
                        + [sram(0, (2,), tile=(0, 3))])
    # Rank 2: 17 words before the destinations, 4 per destination.
    many = [isa.Endpoint("sram", i, 0, isa.View(0, (4, 1))) for i in range(60)]
    with pytest.raises(ValueError, match="60 destinations make the instruction 257 "
                                         "words long.*at most 59 fit"):
        t.dma_multicast(0, 0, "f32", (4, 4), sram(0, (4, 1)), many)
    assert len(isa.encode("dma_multicast", {
        "channel": 0, "token": 0, "dtype": "f32", "sizes": (4, 4),
        "src": sram(0, (4, 1), tile=(0, 0)), "dsts": many[:59]})) == 253
    # (kind, row, col, view) tuples and dtype codes are taken as well.
    words = isa.encode("dma_multicast", {
        "channel": 1, "token": 2, "dtype": 0, "sizes": (4,),
        "src": (1, 0, 0, (64, (1,))), "dsts": [(0, 2, 3, (1 << 33 | 8, (-1,)))]})
    assert words == [0x05 | (18 << 8) | (0xFFFF << 16), 1, 2, 0, 1, 4,
                     1, 0, 0, 64, 0, 1, 0xFFFFFFFF, 1, 2, 3, 8, 2]


def multicast_program():
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (16, 16), "f32")
    t = b.tile(0, 0, tokens=2)
    t.dma_multicast(0, 1, "f32", (16, 16), dram(x.offset, (16, 1)),
                    [sram(0x100, (16, 1), tile=(0, 1)), sram(0, (16, 1), tile=(2, 3)),
                     sram(0x400, (16, 1))], tag=b.add_tag("bcast"))
    t.dma_multicast(1, 0, "bf16", (8,), sram(0x400, (1,)),
                    [sram(0x800, (1,), tile=(3, 3))])
    t.wait(0, 1)
    return b.build()


def test_multicast_round_trips_through_the_decoder(tmp_path):
    p = multicast_program()
    p.save(tmp_path / "p")
    q = load_program(tmp_path / "p")
    assert q.tile(0, 0).stream == p.tile(0, 0).stream
    ins = q.instructions(0, 0)
    assert ins == p.instructions(0, 0)
    f = ins[0].fields
    assert set(f) == {"channel", "token", "dtype", "sizes", "src", "dsts"}
    assert (f["channel"], f["token"], f["dtype"], f["sizes"]) == (0, 1, "f32", (16, 16))
    assert f["src"] == isa.Endpoint("dram", 0, 0, isa.View(p.buffer("x").offset, (16, 1)))
    assert f["dsts"] == tuple(isa.Endpoint("sram", r, c, isa.View(base, (16, 1)))
                              for r, c, base in ((0, 1, 0x100), (2, 3, 0), (0, 0, 0x400)))
    # 1 + 3 + 3 (rank, sizes) + 7 (src) + 2 (dst_strides) + 1 (n) + 3 * 4.
    assert ins[1].offset - ins[0].offset == 4 * 29 == 4 * len(isa.encode(
        "dma_multicast", dict(f), tag=ins[0].tag))


def test_decoding_rejects_a_truncated_multicast():
    words = isa.encode("dma_multicast", {
        "channel": 0, "token": 0, "dtype": "f32", "sizes": (4, 4),
        "src": isa.Endpoint("dram", 0, 0, isa.View(0, (4, 1))),
        "dsts": [isa.Endpoint("sram", 0, c, isa.View(0, (4, 1))) for c in range(3)]})
    assert len(words) == 29

    def decode(ws):
        ws = list(ws)
        ws[0] = (ws[0] & ~0xFF00) | (len(ws) << 8)
        return isa.decode_instruction(ws, 0, 16)

    assert decode(words)["dsts"][2] == isa.Endpoint("sram", 0, 2, isa.View(0, (4, 1)))
    for cut, what in ((13, "src"), (14, "dst_strides"), (15, "dst_strides"),
                      (16, "n"), (17, "dsts"), (28, "dsts")):
        with pytest.raises(isa.DecodeError, match=f"ends inside {what}"):
            decode(words[:cut])
    # A count of destinations that cannot fit the length.
    bad = list(words)
    bad[16] = 1000
    with pytest.raises(isa.DecodeError, match="n = 1000 destinations do not fit"):
        decode(bad)
    # Words left over after the destinations.
    with pytest.raises(isa.DecodeError, match="disagrees with its operands"):
        decode(words + [0])


def test_load_rejects_a_stream_cut_inside_a_multicast(tmp_path):
    multicast_program().save(tmp_path / "p")
    strip_digests(tmp_path / "p")
    s = tmp_path / "p" / "tiles/r0c0.bin"
    data = bytearray(s.read_bytes())
    # The first instruction (29 words) claims 28: its last destination is cut.
    data[17] = 28
    s.write_bytes(bytes(data))
    rejects(tmp_path / "p", "tiles/r0c0.bin", "offset 16",
            "dma_multicast: length 28 is too short for its operands (ends inside dsts)")


# ---- disassembler ----------------------------------------------------------

def test_disassembly_lists_every_instruction():
    text = disassemble(small_program())
    lines = [l for l in text.splitlines() if l.startswith("r0c0")]
    assert len(lines) == 8
    assert lines[0] == ("r0c0 +0x0010 [fc1] dma ch0 tok0 f32 [16x16] dram@0x0(16,1) "
                        "-> sram(0,0)@0x0(16,1)")
    assert "[fc1] matmul f32 m16 k16 n16 lhs@0x0(16,1) rhs@0x400(16,1) acc@0x800(16,1)" \
        in text
    assert "vector_unary exp f32->f32 [16x16] in@0x800(16,1) out@0x800(16,1)" in text
    assert "; dram 0x400 weight w f32[16x16]" in text


def test_disassembly_of_groups_of_rows():
    b = ProgramBuilder("tessel-4x4")
    b.tile(0, 0).matmul("f32", 7, 16, 16, (0, (9, 1, 81)), (4096, (16, 1)),
                        (8192, (7, 1, 49)), g=7, init=True)
    assert ("r0c0 +0x0010 matmul_init f32 m7x7 k16 n16 lhs@0x0(9,1,81) "
            "rhs@0x1000(16,1) acc@0x2000(7,1,49)") in disassemble(b.build())


def test_disassembly_of_a_multicast():
    lines = disassemble(multicast_program()).splitlines()
    assert ("r0c0 +0x0010 [bcast] dma_multicast ch0 tok1 f32 [16x16] dram@0x0(16,1) "
            "-> sram(0,1)@0x100(16,1), sram(2,3)@0x0, sram(0,0)@0x400") in lines
    assert ("r0c0 +0x0084 dma_multicast ch1 tok0 bf16 [8] sram(0,0)@0x400(1) "
            "-> sram(3,3)@0x800(1)") in lines


def test_cli_disasm_and_bad_program(tmp_path, repo):
    small_program().save(tmp_path / "p")
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    out = subprocess.run([sys.executable, "-m", "tessel.cli", "disasm", str(tmp_path / "p")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "r0c0 +0x0010 [fc1] dma" in out.stdout
    (tmp_path / "p" / "tiles/r0c0.bin").write_bytes(b"TSL1")
    out = subprocess.run([sys.executable, "-m", "tessel.cli", "disasm", str(tmp_path / "p")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 1
    assert ("tiles/r0c0.bin" in out.stderr and "corrupted or truncated" in out.stderr
            and "Traceback" not in out.stderr)
