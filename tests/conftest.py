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
