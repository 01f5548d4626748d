"""tessel.compile / compile_and_simulate: outputs against PyTorch eager, the
check, options, saving and loading, and stage errors that keep the IR and
reproduce with tessel-opt."""

import copy
import dataclasses
import json
import shlex
import subprocess

import numpy as np
import pytest
import torch

import drivermodels

import tessel
from tessel._tools import tool_path
from tessel.driver import api, check, source


@pytest.fixture(scope="module")
def tiny():
    model, inputs = drivermodels.build()
    result = tessel.compile_and_simulate(model, inputs, mapper="heuristic",
                                         rtol=drivermodels.RTOL, atol=drivermodels.ATOL)
    return model, inputs, result


def test_outputs_match_pytorch_eager(tiny):
    model, inputs, result = tiny
    with torch.no_grad():
        golden = model.eval()(*inputs).numpy()
    np.testing.assert_allclose(result.outputs["output"], golden,
                               rtol=drivermodels.RTOL, atol=drivermodels.ATOL)
    assert result.check.passed and result.check.reference == "PyTorch eager"
    assert result.check.max_abs_error < drivermodels.ATOL
    assert result.cycles > 0 and result.seconds > 0
    assert 0 < result.utilization <= 1
    assert {"import", "lower", "emit", "simulate", "check"} <= set(result.timings)


def test_stream_checks_every_input_and_returns_the_first(tiny):
    model, inputs, single = tiny
    result = tessel.compile_and_simulate(
        model, inputs, mapper="heuristic", objective="throughput", max_stages=2,
        stream=3, rtol=drivermodels.RTOL, atol=drivermodels.ATOL)
    assert result.check.passed
    assert [o.name for o in result.check.outputs] == [
        "output[0]", "output[1]", "output[2]"]
    np.testing.assert_array_equal(result.outputs["output"], result.outputs["output[0]"])
    np.testing.assert_allclose(result.outputs["output"], single.outputs["output"],
                               rtol=drivermodels.RTOL, atol=drivermodels.ATOL)
    # The other inputs are different, so are their outputs.
    assert not np.allclose(result.outputs["output[1]"], result.outputs["output[0]"])


def test_report_has_layers_and_tiles(tiny, tmp_path):
    _, _, result = tiny
    text = str(result.report)
    assert "per layer:" in text and "per tile:" in text and "PASS" in text
    layers = result.report.layers
    assert layers and sum(l.macs for l in layers) == 4 * (16 * 32 + 32 * 8)
    assert all(l.tiles and l.span is not None for l in layers if l.macs)
    # A row per tile the program runs on (the mapping may leave some idle).
    assert [(t.row, t.col) for t in result.report.tiles] == sorted(
        (t.row, t.col) for t in result.program.tiles)
    trace = json.loads(result.save_trace(tmp_path / "t.json").read_text())
    assert any(e.get("ph") == "X" for e in trace["traceEvents"])


def test_check_fails_outside_the_tolerance(tiny):
    model, inputs, _ = tiny
    src = source.from_model(model, inputs)
    opts = tessel.Options(mapper="heuristic", trace=False)
    compiled = api.compile_source(src, opts)
    golden = src.reference

    def off_by_a_little(arrays):
        return [g + 1e-3 for g in golden(arrays)]

    compiled.source = dataclasses.replace(src, reference=off_by_a_little)
    compiled.options = opts.replace(rtol=0.0, atol=1e-4)
    check = api.simulate_compiled(compiled).check
    assert not check.passed and not bool(check)
    assert check.max_abs_error == pytest.approx(1e-3, rel=1e-2)
    assert str(check).startswith("FAIL") and "output" in str(check)
    # Within atol, but 1.5e-3 of the output's largest magnitude (0.66).
    compiled.options = opts.replace(rtol=0.0, atol=2e-3)
    check = api.simulate_compiled(compiled).check
    assert not check.passed and "largest magnitude" in str(check)
    compiled.options = opts.replace(rtol=0.0, atol=2e-3, scale_rtol=2e-3)
    assert api.simulate_compiled(compiled).check.passed


def test_program_saves_loads_and_simulates(tiny, tmp_path):
    _, inputs, result = tiny
    saved = result.program.save(tmp_path / "prog")
    again = tessel.load_program(saved)
    by_order = again.simulate([inputs[0].numpy()])
    np.testing.assert_array_equal(by_order.outputs["output"], result.outputs["output"])
    assert by_order.cycles == result.cycles


@pytest.mark.parametrize("options,message", [
    ({"mapper": "greedy"}, "option 'mapper' is 'greedy'"),
    ({"objective": "energy"}, "option 'objective'"),
    ({"arch": "tessel-3x3"}, "option 'arch'"),
    ({"rtol": -1.0}, "option 'rtol'"),
    ({"max_stages": 0}, "option 'max_stages'"),
    ({"stream": 0}, "option 'stream' must be an integer >= 1"),
    ({"resident_weights": "yes"}, "option 'resident_weights' must be True or False"),
    ({"resident_weights": True}, "option 'resident_weights' pays off only over a stream"),
])
def test_options_name_the_bad_field(options, message):
    with pytest.raises(ValueError, match=message):
        tessel.Options(**options)


def test_options_are_frozen_and_unknown_ones_named():
    opts = tessel.Options(arch="tessel-16x16")
    assert opts.arch.grid.rows == 16          # a preset name becomes the Arch
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.mapper = "default"
    with pytest.raises(TypeError, match="unknown option 'mappr'"):
        tessel.compile(torch.nn.ReLU(), (torch.randn(2),), mappr="cpsat")


def test_lowering_failure_keeps_the_ir_and_reproduces(tmp_path):
    with pytest.raises(tessel.StageError) as info:
        tessel.compile(drivermodels.Atan2(), (torch.randn(4, 8),), mapper="heuristic",
                       failure_dir=str(tmp_path))
    e = info.value
    assert e.stage == "lower" and "stage 'lower' failed" in str(e)
    assert e.ir_path.parent == tmp_path and e.ir_path.is_file()
    assert "math.atan2" in e.ir_path.read_text()
    assert e.repro.startswith("tessel-opt ") and str(e.ir_path) in e.repro
    assert e.repro in str(e)
    argv = shlex.split(e.repro)
    argv[0] = tool_path("tessel-opt")       # .venv/bin may not be on PATH here
    rerun = subprocess.run(argv, capture_output=True, text=True)
    assert rerun.returncode != 0 and "math.atan2" in rerun.stderr


def test_stages_run_in_the_order_of_the_table():
    from tessel.compiler.lower import STAGES

    assert [name for name, _ in STAGES] == ["legalize", "precompute", "map", "lower", "emit"]
    result = tessel.compile_and_simulate(torch.nn.Linear(8, 4), (torch.randn(2, 8),),
                                         mapper="heuristic")
    assert list(result.timings)[:6] == ["import", "legalize", "precompute", "map", "lower",
                                        "emit"]
    # Without a mapper tessel-default-mapping maps in the lowering.
    result = tessel.compile_and_simulate(torch.nn.Linear(8, 4), (torch.randn(2, 8),),
                                         mapper="default")
    assert list(result.timings)[:5] == ["import", "legalize", "precompute", "lower", "emit"]


def test_legalize_failure_names_its_stage_and_reproduces(tmp_path):
    # A loop is outside the input contract, which legalize checks first.
    from tessel.compiler import LoweringError, lower_to_device

    loop = """
func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    scf.yield %acc : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}"""
    with pytest.raises(LoweringError) as info:
        lower_to_device(loop, "tessel-4x4")
    e = info.value
    assert e.stage == "legalize" and "legalizing for tessel-4x4 failed" in str(e)
    assert e.ir_path.name == "legalize-input.mlir" and "scf.for" in e.ir_path.read_text()
    assert e.repro == f"tessel-opt {e.ir_path} -tessel-legalize-pipeline"
    rerun = subprocess.run([tool_path("tessel-opt"), str(e.ir_path),
                            "-tessel-legalize-pipeline"], capture_output=True, text=True)
    assert rerun.returncode != 0 and "outside Tessel's input contract" in rerun.stderr


def test_emit_failure_keeps_the_device_ir(tmp_path, monkeypatch):
    # The emitter's input is printed only when it fails (it reads the module
    # and leaves it as it was).
    from tessel.compiler import lower

    def broken_emitter(module, **kwargs):
        raise RuntimeError("no encoding for this instruction")

    monkeypatch.setattr(lower, "emit_program", broken_emitter)
    with pytest.raises(tessel.StageError, match="stage 'emit' failed.*no encoding") as info:
        tessel.compile(torch.nn.Linear(8, 4), (torch.randn(2, 8),), failure_dir=str(tmp_path))
    e = info.value
    assert e.ir_path == tmp_path / "emit-input.mlir"
    assert "tessel.device" in e.ir_path.read_text()
    assert e.repro.startswith(f"tessel-opt {e.ir_path}")


def test_lowered_ir_that_does_not_verify_is_lowers_failure(tmp_path, monkeypatch):
    # Emit verifies lower's result while it encodes it; a result that does
    # not verify is lower's failure, reproduced from lower's input.
    from tessel.compiler import emit

    class Failed:
        def finish(self):
            return "loc(unknown): error: a pass broke the device"

    monkeypatch.setattr(emit.tessel, "start_verifying", lambda op, keep_alive: Failed())
    with pytest.raises(tessel.StageError) as info:
        tessel.compile(torch.nn.Linear(8, 4), (torch.randn(2, 8),), failure_dir=str(tmp_path))
    e = info.value
    assert e.stage == "lower" and "a pass broke the device" in str(e)
    assert e.ir_path.is_file() and "tessel.device" not in e.ir_path.read_text()
    assert e.repro.startswith(f"tessel-opt {e.ir_path} -tessel-lowering-pipeline")


def test_dump_ir_writes_each_stage_and_tessel_opt_reproduces_the_lowering(tmp_path):
    tessel.compile(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU()),
                   (torch.randn(2, 8),), mapper="heuristic", dump_ir=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "00-imported.mlir", "01-mapped.mlir", "02-lowered.mlir", "weights"]
    assert "#tessel.mapping" in (tmp_path / "01-mapped.mlir").read_text()
    again = subprocess.run([tool_path("tessel-opt"), str(tmp_path / "01-mapped.mlir"),
                            "-tessel-lowering-pipeline", "-mlir-print-debuginfo"],
                           capture_output=True, text=True, check=True)
    assert again.stdout.rstrip() == (tmp_path / "02-lowered.mlir").read_text().rstrip()
    # Again with the default mapping: no mapped IR, none left from before.
    tessel.compile(torch.nn.ReLU(), (torch.randn(2, 8),), mapper="default",
                   dump_ir=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00-imported.mlir",
                                                          "02-lowered.mlir", "weights"]
    with pytest.raises(tessel.InvalidArgumentError, match="option 'dump_ir': .* is a file"):
        tessel.Options(dump_ir=str(tmp_path / "00-imported.mlir"))


def test_tessel_translate_writes_the_program_tessel_compile_does(tmp_path):
    # The mapped IR and the weights --dump-ir writes are all a program needs:
    # tessel-opt lowers it (with the source locations the tags name) and
    # tessel-translate writes the program tessel.compile gives, byte for byte.
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 4))
    dump = tmp_path / "ir"
    program = tessel.compile(model, (torch.randn(2, 8),), mapper="heuristic",
                             dump_ir=str(dump))
    assert sorted(p.name for p in (dump / "weights").iterdir()) == [
        "0.bias.bin", "0.weight.bin", "2.bias.bin", "2.weight.bin"]
    _assert_translated_from_the_dump(program, dump, tmp_path)


def _assert_translated_from_the_dump(program, dump, tmp_path):
    """tessel-opt lowers ``dump``'s mapped IR and tessel-translate writes,
    with its weights, the files of ``program``, byte for byte."""
    program.save(tmp_path / "compiled")
    lowered = subprocess.run([tool_path("tessel-opt"), str(dump / "01-mapped.mlir"),
                              "-tessel-lowering-pipeline", "-mlir-print-debuginfo"],
                             capture_output=True, check=True).stdout
    subprocess.run([tool_path("tessel-translate"), "--tessel-to-program",
                    "--weights", str(dump / "weights"), "-o", str(tmp_path / "translated")],
                   input=lowered, check=True)
    files = sorted(p.relative_to(tmp_path / "compiled")
                   for p in (tmp_path / "compiled").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "translated")
                           for p in (tmp_path / "translated").rglob("*") if p.is_file())
    for rel in files:
        assert ((tmp_path / "compiled" / rel).read_bytes()
                == (tmp_path / "translated" / rel).read_bytes()), rel


def test_what_the_weights_alone_give_is_computed_once(tmp_path):
    # A batch norm's scale, gamma * rsqrt(var + eps), depends on weights
    # alone: it is computed when the weights are written
    # (tessel-outline-weight-computations), a weight of its own in the
    # program and in --dump-ir's weights, which reproduce the program.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).eval()
    model[1].running_var.uniform_(0.5, 2.0)
    model[1].running_mean.uniform_(-1.0, 1.0)
    x = torch.randn(1, 3, 8, 8)
    dump = tmp_path / "ir"
    program = tessel.compile(model, (x,), mapper="heuristic", dump_ir=str(dump))
    derived = [p.name for p in (dump / "weights").iterdir() if p.name.startswith("derived.")]
    assert derived, sorted(p.name for p in (dump / "weights").iterdir())
    assert "math.rsqrt" not in (dump / "01-mapped.mlir").read_text()
    _assert_translated_from_the_dump(program, dump, tmp_path)
    result = tessel.compile_and_simulate(model, (x,), mapper="heuristic", trace=False)
    assert result.check.passed, str(result.check)


def test_functions_alike_of_what_the_weights_give_are_compiled_once(monkeypatch, tmp_path):
    # Two batch norms of the same channel count are outlined as two functions
    # that differ only in their names: the JIT compiles one and runs it for
    # each, on each one's weights.
    from tessel.frontend import reference
    compiled = []

    class Recording(reference.ReferenceRunner):
        def __init__(self, mlir, signatures, *args, **kwargs):
            names = [s.func_name for s in (signatures if isinstance(signatures, list)
                                           else [signatures])]
            if any(".weights." in name for name in names):
                compiled.append(names)
            super().__init__(mlir, signatures, *args, **kwargs)

    monkeypatch.setattr(reference, "ReferenceRunner", Recording)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.Conv2d(4, 4, 3), torch.nn.BatchNorm2d(4)).eval()
    for bn in (model[1], model[4]):
        bn.running_var.uniform_(0.5, 2.0)
        bn.running_mean.uniform_(-1.0, 1.0)
        bn.weight.data.uniform_(0.5, 1.5)
    dump = tmp_path / "ir"
    result = tessel.compile_and_simulate(model, (torch.randn(1, 3, 10, 10),),
                                         mapper="heuristic", trace=False,
                                         dump_ir=str(dump))
    assert result.check.passed, str(result.check)
    # Two functions, each a scale and a shift; one compiled.
    derived = [p.name for p in (dump / "weights").iterdir() if p.name.startswith("derived.")]
    assert len(derived) == 4, derived
    assert len(compiled) == 1 and len(compiled[0]) == 1, compiled


def test_import_failure_names_the_stage():
    with pytest.raises(tessel.StageError, match="stage 'import' failed.*data-dependent"):
        tessel.compile(drivermodels.DataDependent(), (torch.randn(4, 8),))


def test_a_bf16_model_compiles_and_is_checked_at_bf16_tolerance():
    # bfloat16 travels as float32 (exact); the program keeps bf16 storage
    # and multiplies on the MAC array in bf16 into f32.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                                torch.nn.Linear(32, 8)).to(torch.bfloat16)
    x = torch.randn(4, 16).to(torch.bfloat16)
    result = tessel.compile_and_simulate(model, (x,), arch="tessel-4x4", trace=False)
    assert result.check.passed, str(result.check)
    assert result.check.scale_rtol == check.BF16_TOLERANCE[2]
    assert result.outputs["output"].dtype == np.float32
    with torch.no_grad():
        want = model(x).float().numpy()
        # The f32 model of the same (bf16) weights on the same input.
        f32 = copy.deepcopy(model).float()(x.float()).numpy()
    assert np.abs(result.outputs["output"] - want).max() <= 2 ** -6 * np.abs(want).max()
    # Within bf16's error of the f32 model, as PyTorch's bf16 eager is.
    assert (np.abs(result.outputs["output"] - f32).max()
            <= check.BF16_TOLERANCE[2] * np.abs(f32).max())


def test_keep_f32_applies_to_pytorch_modules_only():
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU()).to(torch.bfloat16)
    x = torch.randn(4, 16).to(torch.bfloat16)
    result = tessel.compile_and_simulate(model, (x,), arch="tessel-4x4", trace=False,
                                         mapper="default", keep_f32=["gelu"])
    assert result.check.passed, str(result.check)
    imported = tessel.frontend.import_torch(model, (x,))
    with pytest.raises(tessel.InvalidArgumentError,
                       match=r"option 'keep_f32' names ATen ops, which only a PyTorch "
                             r"nn.Module has"):
        source.from_model(imported, (x,)).load(("gelu",))
    with pytest.raises(tessel.InvalidArgumentError, match="option keep_f32 must name"):
        tessel.Options(keep_f32=5)


def test_a_dtype_tessel_has_no_type_for_is_refused_by_name():
    # float8 has no storage type in Tessel: the example input is named,
    # with what to do, before any import.
    model = torch.nn.Linear(8, 4)
    with pytest.raises(tessel.InvalidArgumentError,
                       match=r"example input 0 of Linear is torch.float8_e4m3fn, .*model.float\(\)"):
        source.from_model(model, (torch.randn(2, 8).to(torch.float8_e4m3fn),))
