"""The package's layout promises: what imports without MLIR, where the tools
are, and that tessel-opt and the Python bindings see the same world."""

import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_import_tessel_loads_no_mlir(repo):
    # The executors run on machines without the compiled extension (the GPU
    # host): importing the package from the bare source tree must work there.
    code = (
        "import sys, tessel; "
        "loaded = sorted(m for m in sys.modules if m.startswith('tessel._mlir_libs')); "
        "print(tessel.__file__); assert not loaded, loaded"
    )
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    # -S: no site-packages, so neither the build tree nor MLIR is reachable.
    out = subprocess.run([sys.executable, "-S", "-c", code], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).parent == repo / "python" / "tessel"


def test_tessel_opt_is_on_the_venv_path():
    tool = Path(sys.prefix) / "bin" / "tessel-opt"
    assert tool.exists(), "make setup links tessel-opt into the venv"
    help_text = subprocess.run([tool, "--help"], capture_output=True,
                               text=True, check=True).stdout
    for flag in ("--tessel-check-input-contract", "--canonicalize", "--cse",
                 "--one-shot-bufferize", "--linalg-fuse-elementwise-ops",
                 "--linalg-generalize-named-ops", "--convert-linalg-to-loops"):
        assert flag in help_text, f"tessel-opt does not register {flag}"


def test_tessel_translate_is_on_the_venv_path():
    tool = Path(sys.prefix) / "bin" / "tessel-translate"
    assert tool.exists(), "make setup links tessel-translate into the venv"
    help_text = subprocess.run([tool, "--help"], capture_output=True,
                               text=True, check=True).stdout
    for flag in ("--tessel-to-program", "--weights"):
        assert flag in help_text, f"tessel-translate has no {flag}"


def test_tool_shim_finds_tessel_opt():
    from tessel import _tools

    path = _tools.tool_path("tessel-opt")
    version = subprocess.run([path, "--version"], capture_output=True,
                             text=True, check=True).stdout
    assert "LLVM version 22.1.8" in version


def test_tool_shim_names_a_missing_tool():
    from tessel import _tools

    with pytest.raises(FileNotFoundError, match="tessel-frobnicate is not part"):
        _tools.tool_path("tessel-frobnicate")


def test_python_registers_the_dialects_tessel_opt_has():
    from tessel.ir import Context

    with Context() as ctx:
        for name in ("tessel", "func", "arith", "math", "cf", "linalg",
                     "tensor", "memref", "scf", "affine", "bufferization"):
            assert ctx.dialects[name] is not None


def test_demo_pipeline_agrees_between_tool_and_bindings(repo, capsys):
    sys.path.insert(0, str(repo / "examples"))
    try:
        import foundation_demo
    finally:
        sys.path.pop(0)
    assert foundation_demo.main() == 0
    assert "identical IR" in capsys.readouterr().out


def test_generated_docs_are_current(repo, build_dir):
    # docs/generated is what readers see on the web; it must match the ODS.
    subprocess.run(["cmake", "--build", build_dir, "--target", "mlir-doc"],
                   check=True, capture_output=True)
    for built, committed in (
        ("Dialects/TesselDialect.md", "TesselDialect.md"),
        ("Passes/TesselPasses.md", "TesselPasses.md"),
    ):
        fresh = (build_dir / "docs" / built).read_text()
        kept = (repo / "docs" / "generated" / committed).read_text()
        assert fresh == kept, f"docs/generated/{committed} is stale: run `make docs`"
