"""Whole programs on the simulator: outputs against NumPy, determinism,
deadlock reports, run-time errors, the trace, statistics, and the promise that
the runtime imports nothing from MLIR."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tessel.runtime import numerics as nx
from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.simulator import (DeadlockError, SimulationError, simulate)


def pipeline_program():
    """Tile A (0,0) loads x and w from DRAM, computes h = relu(x @ w), pushes
    h into tile B's (0,2) SRAM and signals; B waits, computes y = exp(h) - 1
    and a row sum, and writes both to DRAM."""
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (32, 16), "f32")
    rng = np.random.default_rng(7)
    wv = np.float32(rng.standard_normal((16, 16)) * 0.25)
    w = b.add_buffer("w", "weight", (16, 16), "f32", data=wv)
    y = b.add_buffer("y", "output", (32, 16), "f32")
    s = b.add_buffer("s", "output", (32,), "f32")
    mm = b.add_tag("fc", op="linalg.matmul")
    act = b.add_tag("act", op="linalg.generic")
    a = b.tile(0, 0, tokens=2)
    X, W, H = 0, 4096, 8192
    a.dma(0, 0, "f32", (32, 16), dram(x.offset, (16, 1)), sram(X, (16, 1)), tag=mm)
    a.dma(1, 1, "f32", (16, 16), dram(w.offset, (16, 1)), sram(W, (16, 1)), tag=mm)
    a.wait(0, 1, tag=mm)
    a.vector_fill("f32", 0.0, (32, 16), (H, (16, 1)), tag=mm)
    a.matmul("f32", 32, 16, 16, (X, (16, 1)), (W, (16, 1)), (H, (16, 1)), tag=mm)
    a.vector_binary_imm("max", "f32", 0.0, (32, 16), (H, (16, 1)), (H, (16, 1)), tag=act)
    a.dma(0, 0, "f32", (32, 16), sram(H, (16, 1)), sram(0, (16, 1), tile=(0, 2)), tag=act)
    a.signal(0, 2, 0, tag=act)
    bt = b.tile(0, 2, semaphores=1, tokens=1)
    bt.wait_semaphore(0, tag=act)
    bt.vector_unary("exp", "f32", "f32", (32, 16), (0, (16, 1)), (0, (16, 1)), tag=act)
    bt.vector_binary_imm("sub", "f32", 1.0, (32, 16), (0, (16, 1)), (0, (16, 1)), tag=act)
    bt.vector_reduce("add", "f32", (32, 16), 1, (0, (16, 1)), (4096, (1,)), tag=act)
    bt.dma(0, 0, "f32", (32, 16), sram(0, (16, 1)), dram(y.offset, (16, 1)))
    bt.wait(0)
    bt.dma(0, 0, "f32", (32,), sram(4096, (1,)), dram(s.offset, (1,)))
    bt.wait(0)
    return b.build(), wv


def test_two_tile_pipeline_matches_numpy():
    prog, wv = pipeline_program()
    xv = np.float32(np.random.default_rng(8).standard_normal((32, 16)))
    r = simulate(prog, {"x": xv})
    h = np.maximum(xv.astype(np.float64) @ wv.astype(np.float64), 0)
    want = np.exp(h) - 1
    np.testing.assert_allclose(r.outputs["y"], want, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(r.outputs["s"], want.sum(1), rtol=1e-5, atol=1e-5)
    # Bit for bit the ISA sequence.
    hh = nx.matmul(xv, wv, np.zeros((32, 16), np.float32), "f32")
    hh = nx.binary_imm("max", hh, 0.0, False, "f32")
    yy = nx.binary_imm("sub", nx.unary("exp", hh, "f32", "f32"), 1.0, False, "f32")
    assert r.outputs["y"].tobytes() == yy.tobytes()
    assert r.outputs["s"].tobytes() == nx.reduce("add", yy, 1, "f32").tobytes()
    # Statistics: B waited on A; per-tag figures; bytes per level.
    assert r.tiles[(0, 2)].stalls["tile"] > 0
    assert r.tags["fc"].macs == 32 * 16 * 16
    assert r.bytes["dram_read"] == (32 * 16 + 16 * 16) * 4
    assert r.bytes["dram_write"] == (32 * 16 + 32) * 4
    # A -> B crosses two links; B's writes go to the channel at (0,3), one hop.
    assert r.bytes["noc"] == 2048 + (2048 + 128)
    assert r.bytes["noc_link"] == 2 * 2048 + (2048 + 128)
    for s in r.tiles.values():
        total = s.busy + sum(s.stalls.values()) + s.idle
        assert total == pytest.approx(r.end_time)
    assert "fc" in r.summary()


def test_determinism_and_timing_only_mode():
    prog, _ = pipeline_program()
    xv = np.float32(np.random.default_rng(9).standard_normal((32, 16)))
    r1, r2 = simulate(prog, {"x": xv}), simulate(prog, {"x": xv})
    assert r1.cycles == r2.cycles and r1.end_time == r2.end_time
    for k in r1.outputs:
        assert r1.outputs[k].tobytes() == r2.outputs[k].tobytes()
    t = simulate(prog, numerics=False)
    assert t.cycles == r1.cycles and t.outputs == {}


def test_trace_is_chrome_json(tmp_path):
    prog, _ = pipeline_program()
    r = simulate(prog, {"x": np.zeros((32, 16), np.float32)}, trace=True)
    path = r.save_trace(tmp_path / "t.json")
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M"}
    assert {"tile (0,0)", "tile (0,2)", "MAC array", "vector unit", "DMA ch0",
            "link (0,1)->(0,2)", "DRAM channel 0"} <= names
    spans = [e for e in events if e["ph"] == "X"]
    assert all(e["dur"] >= 0 and "ts" in e for e in spans)
    assert any(e["name"] == "matmul" for e in spans)
    with pytest.raises(ValueError, match="trace=True"):
        simulate(prog, numerics=False).save_trace(tmp_path / "u.json")


def test_trace_instruction_spans_and_tag_spans_agree():
    prog, _ = pipeline_program()
    r = simulate(prog, {"x": np.zeros((32, 16), np.float32)}, trace=True)
    us = 1.0 / prog.arch.clock_mhz
    cycles = {}
    for e in r.trace_events:
        if e["ph"] == "X" and e["tid"] in (0, 1, 2) and "tag" in e.get("args", {}):
            tag = e["args"]["tag"] or "(untagged)"
            lo, hi = cycles.get(tag, (np.inf, 0.0))
            cycles[tag] = (min(lo, e["ts"] / us), max(hi, (e["ts"] + e["dur"]) / us))
    assert set(cycles) == set(r.tags)
    for name, t in r.tags.items():
        assert (t.first, t.last) == pytest.approx(cycles[name]), name
    # Every executed instruction has exactly one span on its engine track.
    n = sum(1 for e in r.trace_events
            if e["ph"] == "X" and e["tid"] in (0, 1, 2) and "tag" in e.get("args", {}))
    assert n == r.instructions == prog.num_instructions
    # Without a trace no spans are kept; the statistics are the same.
    q = simulate(prog, {"x": np.zeros((32, 16), np.float32)})
    assert q.cycles == r.cycles and q.tags["fc"].busy == r.tags["fc"].busy
    assert q.tags["fc"].first == np.inf and r.tags["fc"].first == 0


def test_deadlock_on_a_semaphore_nobody_signals():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(1, 1, semaphores=2)
    t.vector_fill("f32", 1.0, (16,), (0, (1,)))
    t.wait_semaphore(1, 2)
    with pytest.raises(DeadlockError) as info:
        simulate(b.build(), numerics=False)
    msg = str(info.value)
    assert "deadlock" in msg and "tile (1, 1) at offset" in msg
    assert "wait_semaphore sem1 2" in msg
    assert "semaphore 1 to hold 2; it holds 0" in msg
    assert "no instruction of the program signals it" in msg
    assert info.value.waiting[0]["semaphore"] == 1
    assert info.value.result.tiles[(1, 1)].vector > 0


def test_deadlock_of_two_tiles_waiting_on_each_other():
    b = ProgramBuilder("tessel-4x4")
    a = b.tile(0, 0, semaphores=1)
    c = b.tile(0, 1, semaphores=1)
    a.wait_semaphore(0)
    a.signal(0, 1, 0)
    c.wait_semaphore(0)
    c.signal(0, 0, 0)
    with pytest.raises(DeadlockError) as info:
        simulate(b.build(), numerics=False)
    msg = str(info.value)
    assert "tile (0, 0) at offset 16" in msg and "tile (0, 1) at offset 16" in msg
    assert "signalled by tile (0, 1) at offset 28 (+1), which is blocked at offset 16" in msg
    assert "signalled by tile (0, 0) at offset 28 (+1), which is blocked at offset 16" in msg
    assert sorted(w["producers"][0] for w in info.value.waiting) == [(0, 0), (0, 1)]


def test_dma_on_a_pending_token_is_an_error():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (64,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.dma(1, 0, "f32", (64,), sram(0, (1,)), sram(0, (1,), tile=(0, 2)))
    with pytest.raises(SimulationError, match=r"tile \(0, 0\) offset \d+ at cycle 1: "
                       r"dma on token slot 0, which is still pending"):
        simulate(b.build(), numerics=False)


def test_inputs_are_checked():
    prog, _ = pipeline_program()
    with pytest.raises(SimulationError, match="input 'x' is missing"):
        simulate(prog, {})
    with pytest.raises(SimulationError, match=r"has shape \[3\], the program expects \[32, 16\]"):
        simulate(prog, {"x": np.zeros(3, np.float32)})


def test_inputs_must_be_program_inputs_weights_are_not_overwritten():
    prog, wv = pipeline_program()
    xv = np.float32(np.random.default_rng(8).standard_normal((32, 16)))
    want = simulate(prog, {"x": xv}).outputs["y"]
    # A weight, an output, a name the program does not have: each refused with
    # the list of the program's inputs, in both modes.
    for name, what in (("w", "'w' is a weight buffer, not an input"),
                       ("y", "'y' is an output buffer, not an input"),
                       ("nope", "'nope' is not an input")):
        value = np.zeros(prog.buffer(name).shape if name != "nope" else (2,),
                         np.float32)
        for numerics in (True, False):
            with pytest.raises(SimulationError) as e:
                simulate(prog, {"x": xv, name: value}, numerics=numerics)
            assert str(e.value) == f"{what} of the program (its inputs: x)"
    # The weight is still the program's.
    again = simulate(prog, {"x": xv}).outputs["y"]
    assert again.tobytes() == want.tobytes()
    assert prog.dram_image[prog.buffer("w").offset:][:wv.nbytes] == wv.tobytes()


def test_inputs_are_all_required_with_numerics_optional_without():
    b = ProgramBuilder("tessel-4x4")
    b.add_buffer("a", "input", (4,), "f32")
    b.add_buffer("b", "input", (4,), "i32")
    b.tile(0, 0).vector_fill("f32", 1.0, (4,), (0, (1,)))
    prog = b.build()
    with pytest.raises(SimulationError) as e:
        simulate(prog, {})
    assert str(e.value) == ("inputs 'a', 'b' are missing (the program's inputs: "
                            "a, b)")
    with pytest.raises(SimulationError, match=r"^input 'b' is missing"):
        simulate(prog, {"a": np.zeros(4, np.float32)})
    assert simulate(prog, numerics=False).cycles == simulate(
        prog, {"a": np.zeros(4, np.float32), "b": np.zeros(4, np.int32)}).cycles
    # Given inputs are checked in timing-only mode as well.
    with pytest.raises(SimulationError, match="has shape"):
        simulate(prog, {"a": np.zeros(5, np.float32)}, numerics=False)


@pytest.mark.parametrize("dtype, good, bad", [
    ("f32", [np.float32], [np.float64, np.float16, np.int32]),
    ("f16", [np.float16], [np.float32, np.float64]),
    ("bf16", [np.float32, np.uint16], [np.float64, np.float16, np.int16]),
    ("i8", [np.int8], [np.int32, np.uint8, np.float32]),
    ("i32", [np.int32], [np.int64, np.float32, np.bool_]),
])
def test_input_dtype_is_checked(dtype, good, bad):
    b = ProgramBuilder("tessel-4x4")
    b.add_buffer("x", "input", (2, 3), dtype)
    b.tile(0, 0).vector_fill("f32", 1.0, (4,), (0, (1,)))
    prog = b.build()
    for d in good:
        simulate(prog, {"x": np.zeros((2, 3), d)})
    for d in bad:
        with pytest.raises(SimulationError) as e:
            simulate(prog, {"x": np.zeros((2, 3), d)})
        assert str(e.value).startswith(
            f"input 'x' has dtype {np.dtype(d)}, the program expects {dtype} (pass ")


def test_input_reaches_dram_in_its_storage_type():
    # An i8 input round-trips through DRAM and SRAM unchanged.
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (8,), "i8")
    y = b.add_buffer("y", "output", (8,), "i8")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "i8", (8,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.dma(0, 0, "i8", (8,), sram(0, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    xv = np.arange(-4, 4, dtype=np.int8) * 31
    out = simulate(b.build(), {"x": xv}).outputs["y"]
    assert out.dtype == np.int8 and out.tolist() == xv.tolist()


def test_bf16_program_and_broadcast_views():
    # y[i, j] = bf16(x[i, j] * scale[j]) with a stride-0 broadcast of scale.
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (4, 8), "bf16")
    sc = b.add_buffer("scale", "weight", (8,), "bf16", data=np.arange(8) / 4)
    y = b.add_buffer("y", "output", (4, 8), "bf16")
    t = b.tile(3, 3, tokens=1)
    t.dma(0, 0, "bf16", (4, 8), dram(x.offset, (8, 1)), sram(0, (8, 1)))
    t.wait(0)
    t.dma(0, 0, "bf16", (8,), dram(sc.offset, (1,)), sram(128, (1,)))
    t.wait(0)
    t.vector_binary("mul", "bf16", (4, 8), (0, (8, 1)), (128, (0, 1)), (256, (8, 1)))
    t.dma(0, 0, "bf16", (4, 8), sram(256, (8, 1)), dram(y.offset, (8, 1)))
    t.wait(0)
    xv = np.float32(np.random.default_rng(1).standard_normal((4, 8)))
    r = simulate(b.build(), {"x": xv})
    xb = nx.to_f32(nx.to_storage(xv, "bf16"), "bf16")
    want = nx.to_f32(nx.f32_to_bf16(xb * np.float32(np.arange(8) / 4)), "bf16")
    assert r.outputs["y"].tobytes() == want.tobytes()


def test_cli_simulate(tmp_path, repo):
    prog, _ = pipeline_program()
    prog.save(tmp_path / "p")
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    out = subprocess.run([sys.executable, "-m", "tessel.cli", "simulate",
                          str(tmp_path / "p"), "--trace", str(tmp_path / "t.json")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "cycles" in out.stdout and (tmp_path / "t.json").exists()


def test_runtime_imports_nothing_from_mlir(repo):
    code = (
        "import sys, numpy as np\n"
        "from tessel.runtime import simulator, builder, loader, disasm, numerics, isa\n"
        "from tessel import cli\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('tessel._mlir_libs', "
        "'tessel.ir', 'tessel.dialects', 'mlir')))\n"
        "assert not bad, bad\n"
        "b = builder.ProgramBuilder('systolic-32x32')\n"
        "b.tile(0, 0).vector_fill('f32', 1.0, (8,), (0, (1,)))\n"
        "print(simulator.simulate(b.build()).cycles)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    # -S: no site-packages except what PYTHONPATH names; NumPy comes along
    # through an explicit path to its installation.
    numpy_root = os.path.dirname(os.path.dirname(np.__file__))
    env["PYTHONPATH"] += os.pathsep + numpy_root
    out = subprocess.run([sys.executable, "-S", "-c", code], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"


# ---- the command line ------------------------------------------------------

def run_cli(capsys, *argv):
    from tessel import cli
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_simulate_bad_inputs_file(tmp_path, capsys):
    prog, _ = pipeline_program()
    prog.save(tmp_path / "p")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip archive")
    text = tmp_path / "text.npz"
    text.write_text("x = 1\n")
    single = tmp_path / "single.npy"
    np.save(single, np.zeros((32, 16), np.float32))
    for path, reason in ((tmp_path / "missing.npz", "no such file"),
                         (corrupt, "cannot read it as .npz"),
                         (text, "cannot read it as .npz"),
                         (single, "a single .npy array")):
        code, out, err = run_cli(capsys, "simulate", tmp_path / "p", "--inputs", path)
        assert code == 1 and out == ""
        assert err.startswith(f"error: --inputs {path}: {reason}"), err


def error_line(err: str) -> str:
    """The CLI's error line (progress lines come before it on stderr)."""
    return next((line for line in err.splitlines() if line.startswith("error: ")), "")


def test_cli_simulate_checks_the_arrays_of_inputs(tmp_path, capsys):
    prog, _ = pipeline_program()
    prog.save(tmp_path / "p")
    # The file is checked before the program runs: the message names it,
    # what is wrong with it, and what to pass.
    cases = [({"x": np.zeros((32, 16))}, "'x' has dtype float64, the program's "
              "buffer f32"),
             ({"x": np.zeros((32, 16), np.float32), "w": np.zeros((16, 16), np.float32)},
              "it holds w, x, the program's inputs are x"),
             ({}, "it holds no arrays, the program's inputs are x")]
    for arrays, message in cases:
        np.savez(tmp_path / "in.npz", **arrays)
        code, out, err = run_cli(capsys, "simulate", tmp_path / "p", "--inputs",
                                 tmp_path / "in.npz")
        assert code == 1 and error_line(err) == (
            f"error: --inputs {tmp_path / 'in.npz'}: {message}; pass an .npz with "
            f"one array per input of the program, by name"), err
    xv = np.float32(np.random.default_rng(8).standard_normal((32, 16)))
    np.savez(tmp_path / "in.npz", x=xv)
    code, out, err = run_cli(capsys, "simulate", tmp_path / "p", "--inputs",
                             tmp_path / "in.npz", "--outputs", tmp_path / "out.npz")
    assert code == 0, err
    with np.load(tmp_path / "out.npz") as got:
        assert got["y"].tobytes() == simulate(prog, {"x": xv}).outputs["y"].tobytes()


def test_cli_random_inputs_follow_the_buffer_dtype(tmp_path, capsys):
    from tessel.cli import random_inputs
    b = ProgramBuilder("tessel-4x4")
    dts = {"a": "f32", "b": "f16", "c": "bf16", "d": "i8", "e": "i32"}
    for name, dt in dts.items():
        b.add_buffer(name, "input", (64,), dt)
    d = b.add_buffer("y", "output", (64,), "i8")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "i8", (64,), dram(b._buffers[3].offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.dma(0, 0, "i8", (64,), sram(0, (1,)), dram(d.offset, (1,)))
    t.wait(0)
    prog = b.build()
    arrays = random_inputs(prog)
    want = {"a": np.float32, "b": np.float16, "c": np.float32, "d": np.int8,
            "e": np.int32}
    assert {k: v.dtype for k, v in arrays.items()} == {k: np.dtype(v)
                                                       for k, v in want.items()}
    assert arrays["d"].min() < -64 and arrays["d"].max() > 64
    assert np.abs(arrays["e"]).max() > 2 ** 24
    prog.save(tmp_path / "p")
    code, out, err = run_cli(capsys, "simulate", tmp_path / "p", "--outputs",
                             tmp_path / "out.npz")
    assert code == 0, err
    with np.load(tmp_path / "out.npz") as got:
        assert got["y"].tolist() == arrays["d"].tolist()


def test_cli_bad_program_and_unwritable_outputs(tmp_path, capsys):
    code, out, err = run_cli(capsys, "simulate", tmp_path / "nothing")
    assert code == 1 and err.startswith(f"error: {tmp_path / 'nothing'}: ")
    code, out, err = run_cli(capsys, "disasm", tmp_path / "nothing")
    assert code == 1 and "no manifest.json" in err
    prog, _ = pipeline_program()
    prog.save(tmp_path / "p")
    code, out, err = run_cli(capsys, "simulate", tmp_path / "p", "--trace",
                             tmp_path / "no" / "such" / "dir" / "t.json")
    assert code == 1 and error_line(err).startswith("error: ") and "Traceback" not in err


def test_loading_and_simulating_need_no_yaml(tmp_path, repo):
    prog, _ = pipeline_program()
    prog.save(tmp_path / "p")
    desc = json.dumps(prog.arch.to_dict())
    code = (
        "import sys, json\n"
        "sys.modules['yaml'] = None        # import yaml fails\n"
        "import numpy as np\n"
        "from tessel.runtime import builder, loader, simulator, disasm\n"
        "from tessel.arch import Arch\n"
        f"p = loader.load_program({str(tmp_path / 'p')!r})\n"
        "x = np.zeros((32, 16), np.float32)\n"
        "print(simulator.simulate(p, {'x': x}).cycles)\n"
        "disasm.disassemble(p)\n"
        f"desc = json.loads({desc!r})\n"
        "for arch in (desc, Arch.from_dict(desc)):\n"
        "    b = builder.ProgramBuilder(arch)\n"
        "    b.tile(0, 0).vector_fill('f32', 1.0, (8,), (0, (1,)))\n"
        "    print(simulator.simulate(b.build()).cycles)\n"
        "try:\n"
        "    builder.ProgramBuilder('tessel-4x4')\n"
        "except ImportError:\n"
        "    print('preset needs yaml')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    cycles = simulate(prog, {"x": np.zeros((32, 16), np.float32)}).cycles
    assert out.stdout.split() == [str(cycles), "3", "3", "preset", "needs", "yaml"]
