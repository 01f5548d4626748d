"""The files `tessel compile` and `tessel simulate` keep beside a program
(compile.json, reference/, run/): one that cannot be read or written, or
that does not match the program, is an error naming the file, the field
and the fix, never a traceback or a check that fails for the file's sake."""

import json
import math
import shutil

import numpy as np
import pytest

import tessel
from tessel import cli
from tessel.driver.commands import SideFileError
from tessel.report import Report, ReportError


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """mlp on tessel-4x4, compiled and simulated once."""
    prog = tmp_path_factory.mktemp("compiled") / "p"
    assert cli.main(["compile", "mlp", "-a", "tessel-4x4", "-o", str(prog), "-q",
                     "--mapper", "default"]) == 0
    assert cli.main(["simulate", str(prog), "-q"]) == 0
    return prog


@pytest.fixture
def prog(compiled, tmp_path, capsys):
    copy = tmp_path / "p"
    shutil.copytree(compiled, copy)
    capsys.readouterr()
    return copy


def _fails(capsys, *argv) -> str:
    """The error of a command that must fail with one, not a traceback."""
    assert cli.main(list(argv)) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    return err


# ---- where the program and its run are written ------------------------------


def test_an_output_path_that_is_not_a_program_directory_is_named(tmp_path, capsys):
    (tmp_path / "taken").write_text("x\n")
    err = _fails(capsys, "compile", "mlp", "-a", "tessel-4x4", "-q", "--mapper", "default",
                 "-o", str(tmp_path / "taken"))
    assert f"-o {tmp_path / 'taken'}: cannot write the program there" in err
    assert "exists and is not a program directory" in err and "pass a new directory" in err


def test_a_directory_where_the_report_goes_is_named(prog, capsys):
    shutil.rmtree(prog / "run")
    (prog / "run" / "report.json").mkdir(parents=True)
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{prog / 'run' / 'report.json'}: is a directory" in err
    assert f"remove it and simulate again: tessel simulate {prog}" in err


def test_a_file_where_the_run_directory_goes_is_named(prog, capsys):
    shutil.rmtree(prog / "run")
    (prog / "run").write_text("x\n")
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{prog / 'run'}: is not a directory" in err and "remove it" in err
    err = _fails(capsys, "report", str(prog))
    assert f"{prog / 'run'}: is not a directory" in err and "tessel simulate" in err


# ---- run/report.json -------------------------------------------------------

@pytest.mark.parametrize("change, field, said", [
    (lambda d: d.update(timings={"a": "x"}), "timings.a", "'x', not a number"),
    (lambda d: d.update(mac_utilization="x"), "mac_utilization", "'x', not a number"),
    (lambda d: d.update(check="x"), "check", "'x', not an object"),
    (lambda d: d.update(arch=3), "arch", "3, not an object"),
    (lambda d: d.update(bytes="x"), "bytes", "'x', not an object of numbers"),
    (lambda d: d["arch"].update(clock_mhz=0), "arch.clock_mhz", "0, not a number above 0"),
    (lambda d: d["arch"].update(rows=2 ** 31), "arch.rows", "not an integer from 1 to"),
    (lambda d: d["layers"][0].pop("busy"), "layers[0].busy", "is missing"),
    (lambda d: d["layers"][0].update(tiles=[[0]]), "layers[0].tiles[0]",
     "not a [row, col] pair"),
    (lambda d: d["tiles"][0].update(stalls={"dram": None}), "tiles[0].stalls.dram",
     "None, not a number"),
    (lambda d: d["tiles"][0].update(row=9), "tiles[0]", "outside the 4x4 grid"),
    (lambda d: d["check"].update(passed="yes"), "check.passed", "not a boolean"),
    (lambda d: d["energy"].pop("total"), "energy", "has no 'total'"),
    (lambda d: d["tiles"][0]["energy"].pop("total"), "tiles[0].energy", "has no 'total'"),
], ids=["timings", "mac_utilization", "check", "arch", "bytes", "clock", "rows",
        "layer-field", "layer-tiles", "stalls", "tile-outside", "passed", "energy-total",
        "tile-energy-total"])
def test_a_malformed_report_names_the_file_and_field(prog, capsys, change, field, said):
    path = prog / "run" / "report.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    err = _fails(capsys, "report", str(prog))
    assert f"{path}: field '{field}' " in err and said in err
    assert f"run `tessel simulate {prog}` to write it again" in err


def test_a_report_that_is_not_json_or_not_a_file_is_named(prog, capsys):
    path = prog / "run" / "report.json"
    path.write_text("{x")
    err = _fails(capsys, "report", str(prog))
    assert f"{path}: cannot read it as JSON (Expecting property name" in err
    assert "tessel simulate" in err
    path.unlink()
    path.mkdir()
    err = _fails(capsys, "report", str(prog))
    assert f"{path}: is a directory, not a simulation's report" in err
    assert "missing" not in err


def test_report_from_dict_raises_a_tessel_error():
    with pytest.raises(ReportError, match=r"r.json: field 'name' is missing; rerun") as e:
        Report.from_dict({"format": "tessel-report", "version": 1}, where="r.json")
    assert isinstance(e.value, tessel.TesselError) and isinstance(e.value, ValueError)


# ---- compile.json ----------------------------------------------------------

@pytest.mark.parametrize("key, value, said", [
    ("timings", {"import": "x"}, "'timings' of stage 'import' is 'x', not a number"),
    ("rtol", -1e-5, "'rtol' is -1e-05, not a number >= 0"),
    ("atol", math.nan, "'atol' is nan, not a number >= 0"),
    ("scale_rtol", math.inf, "'scale_rtol' is inf, not a number >= 0"),
])
def test_a_bad_compile_json_entry_is_named(prog, capsys, key, value, said):
    path = prog / "compile.json"
    info = json.loads(path.read_text())
    info[key] = value
    path.write_text(json.dumps(info))
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{path}: {said}" in err and "compile the program again" in err


# ---- reference/ ------------------------------------------------------------


def _rewrite(path, change):
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    np.savez(path, **change(arrays))


@pytest.mark.parametrize("name, change, said", [
    ("outputs.npz", lambda a: {"zzz": a["output"]},
     "it holds zzz, the program's outputs are output"),
    ("outputs.npz", lambda a: {"output": a["output"][:1]},
     "'output' has shape [1, 10], the program's buffer [8, 10]"),
    ("outputs.npz", lambda a: {"output": a["output"].astype(bool)},
     "'output' has dtype bool, the program's buffer f32"),
    ("inputs.npz", lambda a: {"zzz": a["x"]}, "it holds zzz, the program's inputs are x"),
    ("inputs.npz", lambda a: {"x": a["x"].astype(np.float64)},
     "'x' has dtype float64, the program's buffer f32"),
], ids=["output-name", "output-shape", "output-dtype", "input-name", "input-dtype"])
def test_a_reference_of_another_program_is_named(prog, capsys, name, change, said):
    _rewrite(prog / "reference" / name, change)
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{prog / 'reference' / name}: {said}, so it was not written for this " \
           f"program; compile the program again" in err


def test_an_incomplete_reference_is_named(prog, capsys):
    (prog / "reference" / "inputs.npz").unlink()
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{prog / 'reference' / 'inputs.npz'}: is missing" in err
    shutil.rmtree(prog / "reference")
    (prog / "reference").write_text("x\n")
    err = _fails(capsys, "simulate", str(prog), "-q")
    assert f"{prog / 'reference'}: is not a directory" in err


def test_inputs_of_another_program_are_named(prog, tmp_path, capsys):
    np.savez(tmp_path / "in.npz", zzz=np.zeros((8, 64), np.float32))
    err = _fails(capsys, "simulate", str(prog), "-q", "--inputs", str(tmp_path / "in.npz"))
    assert f"--inputs {tmp_path / 'in.npz'}: it holds zzz, the program's inputs are x" in err


def test_side_file_error_is_a_tessel_error():
    assert issubclass(SideFileError, tessel.TesselError)
    assert issubclass(SideFileError, ValueError)
