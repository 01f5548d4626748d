"""The tessel command: compile -> simulate -> report round trip, --quiet,
and the errors of a report without a simulation."""

import json
from pathlib import Path

import numpy as np

from tessel import cli

MODEL = str(Path(__file__).with_name("drivermodels.py"))


def test_compile_simulate_report_round_trip(tmp_path, capsys):
    prog = tmp_path / "prog"
    assert cli.main(["compile", MODEL, "-a", "tessel-4x4", "-o", str(prog),
                     "--mapper", "heuristic"]) == 0
    out, err = capsys.readouterr()
    assert "importing the model" in err and "lower:" in err      # progress
    assert (prog / "manifest.json").is_file()
    assert (prog / "reference" / "inputs.npz").is_file()
    info = json.loads((prog / "compile.json").read_text())
    assert info["reference"] == "PyTorch eager" and info["rtol"] == 1e-5

    trace = tmp_path / "trace.json"
    assert cli.main(["simulate", str(prog), "--trace", str(trace), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "check against PyTorch eager: PASS" in out
    assert err == ""                                            # --quiet
    assert json.loads(trace.read_text())["traceEvents"]
    assert (prog / "run" / "report.json").is_file()

    assert cli.main(["report", str(prog), "--html"]) == 0
    out, _ = capsys.readouterr()
    assert "per layer:" in out and "drivermodels.py:" in out
    for name in ("report.html", "heatmap.png", "roofline.png"):
        assert (prog / "report" / name).stat().st_size > 1000, name
    page = (prog / "report" / "report.html").read_text()
    assert "data:image/png;base64," in page and str(trace) in page


def test_compile_a_pipelined_stream_and_check_every_input(tmp_path, capsys):
    prog = tmp_path / "prog"
    assert cli.main(["compile", MODEL, "-a", "tessel-4x4", "-o", str(prog), "-q",
                     "--mapper", "heuristic", "--objective", "throughput",
                     "--max-stages", "2", "--stream", "2",
                     "--resident-weights"]) == 0
    info = json.loads((prog / "compile.json").read_text())
    assert info["stream"] == 2 and info["max_stages"] == 2
    assert info["resident_weights"]
    manifest = json.loads((prog / "manifest.json").read_text())
    assert manifest["inputs"] == ["x[0]", "x[1]"]
    assert manifest["outputs"] == ["output[0]", "output[1]"]
    capsys.readouterr()
    assert cli.main(["simulate", str(prog), "--quiet"]) == 0
    assert "check against PyTorch eager: PASS" in capsys.readouterr().out
    assert json.loads((prog / "run" / "report.json").read_text())["check"]["passed"]
    # The check covered both inputs of the stream, which differ.
    with np.load(prog / "reference" / "outputs.npz") as golden:
        assert sorted(golden.files) == ["output[0]", "output[1]"]
    with np.load(prog / "reference" / "inputs.npz") as inputs:
        assert not np.array_equal(inputs["x[0]"], inputs["x[1]"])


def test_report_before_simulate_says_what_to_run(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    assert cli.main(["report", str(tmp_path / "p")]) == 1
    assert f"run `tessel simulate {tmp_path / 'p'}` first" in capsys.readouterr().err


def test_compile_names_an_unknown_model(tmp_path, capsys):
    assert cli.main(["compile", "no_such_model", "-o", str(tmp_path / "p")]) == 1
    assert "not a zoo case" in capsys.readouterr().err


def test_a_missing_extra_is_named_not_a_traceback(monkeypatch, capsys):
    # As after `pip install .` without extras: compiling needs PyTorch.
    from tessel.driver import commands

    def without_torch(args):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(commands, "compile_command", without_torch)
    assert cli.main(["compile", "mlp", "-o", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tessel compile: needs the Python package 'torch', which the "
                          "'frontend' extra installs: pip install 'tessel[frontend]'")


def test_broken_files_beside_the_program_are_named(tmp_path, capsys):
    prog = tmp_path / "p"
    assert cli.main(["compile", "mlp", "-o", str(prog), "-q", "--mapper", "default"]) == 0
    capsys.readouterr()
    good = (prog / "compile.json").read_text()
    for text, said in (("{", "cannot read it as JSON"), ("[1]", "must be a JSON object"),
                       (good.replace('"rtol": ', '"rtol": "x", "unused": '),
                        "'rtol' is 'x', not a number")):
        (prog / "compile.json").write_text(text)
        assert cli.main(["simulate", str(prog), "-q"]) == 1
        err = capsys.readouterr().err
        assert "compile.json" in err and said in err and "compile the program again" in err
        assert "Traceback" not in err
    (prog / "compile.json").write_text(good)
    (prog / "reference" / "outputs.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert cli.main(["simulate", str(prog), "-q"]) == 1
    err = capsys.readouterr().err
    assert "outputs.npz" in err and "cannot read it as .npz" in err


def test_map_a_model_of_ones_own_script(capsys):
    # The models `tessel compile` takes, not only the zoo's.
    assert cli.main(["map", MODEL, "--arch", "tessel-4x4", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "predicted latency" in out and "drivermodels.py:" in out
    assert cli.main(["map", MODEL + ":nosuch", "--arch", "tessel-4x4"]) == 1
    assert "defines no function nosuch()" in capsys.readouterr().err
    assert cli.main(["map", "nosuch", "--arch", "tessel-4x4"]) == 1
    assert "not a zoo case" in capsys.readouterr().err
