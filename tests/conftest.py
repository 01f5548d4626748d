"""Shared fixtures of Tessel's pytest suite."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def build_dir() -> Path:
    if not (BUILD / "build.ninja").exists():
        pytest.fail("no build tree at build/; run `make setup` first")
    return BUILD


@pytest.fixture(scope="session")
def small_cnn():
    """The zoo's small CNN: its case, the module in eval mode, its example
    inputs and the imported model (imported once per run)."""
    from tessel import frontend as fe
    from tessel import zoo

    case = zoo.get("small_cnn")
    module, inputs = case.build()
    module.eval()
    return case, module, inputs, fe.import_torch(module, inputs)
