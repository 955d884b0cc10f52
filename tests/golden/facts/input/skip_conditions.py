"""When a skip applies (skip_detail): a condition names it, an unconditional mark or a
call the body always reaches does not."""
import sys
import unittest

import pytest

PY_3_8_PLUS = sys.version_info >= (3, 8)
on_windows = pytest.mark.skipif(sys.platform == "win32", reason="posix only")


@pytest.mark.skipif(not PY_3_8_PLUS, reason="3.8+")
def test_version_gate():
    assert True


@pytest.mark.skipif("sys.version_info < (3, 8)")
def test_string_condition():
    assert True


@pytest.mark.skipif(True, reason="a true constant always skips")
def test_true_constant():
    assert True


@pytest.mark.skipif(reason="no condition at all")
def test_skipif_without_condition():
    assert True


@pytest.mark.xfail(sys.platform == "darwin", reason="macOS bug")
def test_conditional_xfail():
    assert True


@pytest.mark.xfail(condition=PY_3_8_PLUS, reason="keyword")
def test_xfail_condition_keyword():
    assert True


@on_windows
def test_alias_condition():
    assert True


@unittest.skipUnless(PY_3_8_PLUS, "3.8+")
def test_skip_unless():
    assert True


@pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.skip(reason="case"))])
def test_param_case(x):
    assert x


def test_body_calls(tmp_path):
    if sys.platform == "win32":
        pytest.skip("posix")
    else:
        for name in ("a", "b"):
            pytest.skip(name)
    try:
        import json  # noqa: F401
    except ImportError:
        pytest.skip("no json")
    np = pytest.importorskip("numpy")
    with open(tmp_path / "x", "w"):
        pytest.xfail("always reached through a with block")


@pytest.mark.skipif(not PY_3_8_PLUS, reason="3.8+")
class TestGated:
    pytestmark = pytest.mark.xfail(reason="class pytestmark, unconditional")

    def test_method(self):
        assert True
