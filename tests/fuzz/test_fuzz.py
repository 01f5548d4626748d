"""A short, seeded run of the fuzzing harness (tools/fuzz/fuzz.py; `make
fuzz` runs the long one): mutants of the lit inputs through tessel-opt,
corruptions of a program through the loader and the simulator, and
corruptions of the files beside a compiled program through `tessel
simulate`, `report` and `disasm` find nothing in Tessel's own code."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "fuzz"))

import fuzz  # noqa: E402


def test_tessel_opt_survives_mutated_ir(tmp_path):
    from tessel._tools import tool_path

    report = fuzz.run_opt(tool_path("tessel-opt"), fuzz.lit_inputs(), runs=400,
                          seed=1, timeout=20.0, keep=tmp_path)
    assert report.findings == [], "\n".join(report.findings)
    assert report.outcomes["accepted"] > 0 and report.outcomes["rejected"] > 0


def test_a_corrupted_program_is_rejected_or_harmless(tmp_path):
    report = fuzz.run_program(runs=300, seed=1, keep=tmp_path)
    assert report.findings == [], "\n".join(report.findings)
    assert report.outcomes["rejected"] > 0


def test_corrupted_files_beside_a_program_are_named_or_harmless(tmp_path):
    report = fuzz.run_side_files(runs=300, seed=1, keep=tmp_path)
    assert report.findings == [], "\n".join(report.findings)
    assert report.outcomes["rejected"] > 0 and report.outcomes["accepted"] > 0
