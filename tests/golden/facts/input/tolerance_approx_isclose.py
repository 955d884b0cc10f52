import math
from math import isclose

import pytest
from pytest import approx


def test_approx_default_is_rel_1e_6():
    assert measure() == pytest.approx(1.5)


def test_approx_abs():
    assert measure() == pytest.approx(1.5, abs=1e-3)


def test_approx_rel():
    assert measure() == pytest.approx(1.5, rel=0.01)


def test_approx_both_gives_two_entries():
    assert measure() == pytest.approx(1.5, rel=0.01, abs=1e-4)


def test_approx_positional_rel_and_abs():
    assert measure() == approx(1.5, 0.02, 0.003)


def test_approx_bare_import_and_computed():
    tol = 0.1
    assert measure() == approx(1.5, abs=tol)


def test_approx_none_means_not_given():
    assert measure() == approx(1.5, rel=None, abs=1e-2)


def test_approx_kwargs_expansion_is_computed():
    opts = {"abs": 1}
    assert measure() == approx(1.5, **opts)


def test_isclose_default_is_rel_1e_9():
    assert math.isclose(measure(), 1.5)


def test_isclose_rel_tol():
    assert math.isclose(measure(), 1.5, rel_tol=1e-3)


def test_isclose_abs_tol():
    assert isclose(measure(), 1.5, abs_tol=0.5)


def test_isclose_both():
    assert math.isclose(measure(), 1.5, abs_tol=1e-12, rel_tol=1e-6)


def test_isclose_computed():
    assert math.isclose(measure(), 1.5, rel_tol=TOLERANCE)


@pytest.mark.parametrize("value, expected", [(0.1 + 0.2, pytest.approx(0.3, abs=1e-9))])
def test_approx_in_parametrize_decorator(value, expected):
    assert value == expected
