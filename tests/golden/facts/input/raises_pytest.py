import pytest
from pytest import raises

import errors


def test_rank_zero_names():
    with pytest.raises(ValueError):
        int("x")
    with pytest.raises(KeyError):
        {}["k"]
    with pytest.raises(TypeError, match="unsupported"):
        1 + "a"


def test_other_builtin_and_attribute_names():
    with pytest.raises(LookupError):
        [][0]
    with pytest.raises(errors.MyError):
        fail()
    with pytest.raises(FileNotFoundError):
        open("/nonexistent")


def test_broad_exceptions_rank_three():
    with pytest.raises(Exception):
        fail()
    with pytest.raises(BaseException):
        fail()


def test_tuple_takes_widest_member():
    with pytest.raises((ValueError, KeyError)):
        fail()
    with pytest.raises((KeyError, errors.MyError)):
        fail()
    with pytest.raises((ValueError, Exception)):
        fail()


def test_computed_exception():
    with pytest.raises(error_for("x")):
        fail()
    with pytest.raises(ERRORS[0]):
        fail()
    exc_type = ValueError
    with pytest.raises(exc_type):
        fail()


def test_call_form_and_bare_raises():
    pytest.raises(ValueError, int, "x")
    with raises(KeyError) as info:
        {}["k"]
    assert info.type is KeyError


def test_keyword_expected_exception():
    with pytest.raises(expected_exception=OSError):
        fail()
