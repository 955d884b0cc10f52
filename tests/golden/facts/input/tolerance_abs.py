import math


def test_abs_less_than_literal():
    assert abs(measure() - 1.5) < 1e-3


def test_abs_less_equal_literal():
    assert abs(a - b) <= 0.5


def test_reversed_bound():
    assert 1e-6 > abs(a - b)
    assert 2 >= abs(c - d)


def test_literal_arithmetic_is_folded():
    assert abs(a - b) < 10 ** -6
    assert abs(a - b) < -(-0.25)
    assert abs(a - b) < 1 / 4


def test_computed_bound_is_null():
    eps = 1e-9
    assert abs(a - b) < eps
    assert abs(a - b) < eps * 10
    assert abs(a - b) < float("inf")


def test_math_fabs():
    assert math.fabs(a - b) < 0.01


def test_tolerance_outside_an_assert_still_counts():
    ok = abs(a - b) < 0.1
    assert ok


def test_not_a_tolerance():
    assert abs(a) < 1e-3
    assert abs(a - b) > 1e-3
    assert abs(a + b) < 1e-3
