"""Regression tests for ties: invoices round half a cent away from zero."""

import pytest

from roundmath import round_half, round_to_cents


@pytest.mark.parametrize(("value", "expected"), [(0.5, 1), (1.5, 2), (2.5, 3), (-2.5, -3)])
def test_round_half_rounds_ties_away_from_zero(value, expected):
    assert round_half(value) == expected


def test_round_to_cents_uses_the_decimal_representation():
    assert round_to_cents(1.005) == 1.01
    assert round_to_cents(2.675) == 2.68
