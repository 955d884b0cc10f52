import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def expected_totals():
    """Invoice totals signed off by the billing team (tests/fixtures)."""
    return json.loads((FIXTURES / "expected_totals.json").read_text(encoding="utf-8"))


@pytest.fixture
def packed_cents():
    """A legacy export: four amounts in cents, packed little-endian."""
    return (FIXTURES / "packed_cents.bin").read_bytes()
