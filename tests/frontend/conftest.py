"""Fixtures of the frontend tests. Expensive zoo checks run only with
TESSEL_TEST_FULL_ZOO=1; every model still runs on one path by default."""

import os

import pytest

FULL_ZOO = os.environ.get("TESSEL_TEST_FULL_ZOO") == "1"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow_zoo: an expensive zoo check, run with TESSEL_TEST_FULL_ZOO=1")


def pytest_collection_modifyitems(config, items):
    if FULL_ZOO:
        return
    skip = pytest.mark.skip(reason="expensive zoo check; set TESSEL_TEST_FULL_ZOO=1")
    for item in items:
        if "slow_zoo" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _stop_frontend_process():
    yield
    from tessel import frontend
    frontend.shutdown()
