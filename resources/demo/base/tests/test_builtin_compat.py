"""round_half must agree with the built-in round() used by the 2019 billing exports."""

import pytest

from roundmath import round_half


@pytest.mark.parametrize("value", [0.5, 1.5, 2.5, 3.5, -0.5, -2.5])
def test_matches_builtin_round(value):
    assert round_half(value) == round(value)


def test_matches_builtin_round_to_cents():
    for mills in range(0, 1000, 5):
        value = mills / 1000
        assert round_half(value, 2) == round(value, 2), value
