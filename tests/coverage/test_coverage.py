"""The op-coverage registry (tessel.coverage): every case compiles, matches
PyTorch eager and gives the simulator's bits on the CPU emulator, except the
known failures, which must still fail
(strict), each for the reason the registry gives; docs/coverage.md is the
registry's table."""

from pathlib import Path

import pytest

from tessel import coverage

NAMES = coverage.names()


@pytest.mark.parametrize("name", NAMES)
def test_case(name):
    outcome = coverage.run(coverage.get(name))
    if name in coverage.XFAIL:
        assert not outcome.passed, (
            f"{name} passes now: drop it from the known failures in "
            "python/tessel/coverage/cases.py and regenerate docs/coverage.md")
        pytest.xfail(f"{coverage.XFAIL[name]} (today: {outcome.message})")
    assert outcome.passed, outcome.message


def test_most_cases_pass():
    """The goal: at least 95 % of at least 80 cases (today 96 %)."""
    assert len(NAMES) >= 80
    passing = len(NAMES) - len(coverage.XFAIL)
    assert passing / len(NAMES) >= 0.95, f"{passing} of {len(NAMES)} pass"


def test_doc_table_is_current():
    doc = (Path(__file__).parents[2] / "docs" / "coverage.md").read_text()
    assert coverage.markdown() in doc, (
        "docs/coverage.md is stale: run python -m tessel.coverage --markdown "
        "docs/coverage.md")
