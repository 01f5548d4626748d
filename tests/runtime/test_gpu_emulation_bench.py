"""bench/gpu_emulation.py stays runnable where its figures are taken: it
saves a compiled zoo model and a hand-scheduled layer on a machine with the
compiler, and loads them for the emulator (here its CPU path), which checks
them against the simulator byte for byte."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu_emulation.py"


def run_bench(*args):
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True,
                          text=True, timeout=600)


def test_saved_programs_emulate_bit_for_bit(tmp_path):
    saved = run_bench("--save", str(tmp_path), "--programs", "mlp", "conv")
    assert saved.returncode == 0, saved.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conv", "mlp"]

    loaded = run_bench("--load", str(tmp_path), "--device", "cpu", "--repeat", "1")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    rows = [line for line in loaded.stdout.splitlines()
            if line.startswith(("mlp", "ResNet-18"))]
    assert [row.split()[0] for row in rows] == ["ResNet-18", "mlp"]
    assert all(row.endswith("yes") for row in rows)
    assert "mlp (tessel-4x4)" in loaded.stdout


def test_loading_an_empty_directory_says_what_to_do(tmp_path):
    r = run_bench("--load", str(tmp_path), "--device", "cpu")
    assert r.returncode == 1
    assert f"no saved programs in {tmp_path}" in r.stderr and "--save" in r.stderr
