import json
import random
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def seeded_random(request):
    """Every test draws from random seeded 0, so that a plain run is repeatable; under
    patchwitness (its pw_plugin) the run's seed is used instead."""
    if not request.config.pluginmanager.has_plugin("pw_plugin"):
        random.seed(0)


@pytest.fixture
def expected_totals():
    """Invoice totals signed off by the billing team (tests/fixtures)."""
    return json.loads((FIXTURES / "expected_totals.json").read_text(encoding="utf-8"))


@pytest.fixture
def packed_cents():
    """A legacy export: four amounts in cents, packed little-endian."""
    return (FIXTURES / "packed_cents.bin").read_bytes()


def pytest_collection_modifyitems(config, items):
    # The legacy suite still expects the old export rounding; keep it from
    # breaking CI until billing migrates the 2019 exports.
    for item in items:
        if "/legacy/" in item.nodeid:
            item.add_marker(pytest.mark.xfail(reason="legacy rounding", strict=False))
