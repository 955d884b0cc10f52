import sys
import unittest
from unittest import expectedFailure, skipIf

import pytest
from pytest import mark

requires_posix = pytest.mark.skipif(sys.platform == "win32", reason="posix only")


@pytest.mark.skip
def test_skip_without_call():
    assert False


@pytest.mark.skip(reason="flaky on CI")
def test_skip_with_call():
    assert False


@pytest.mark.skipif(sys.version_info < (3, 9), reason="needs 3.9")
def test_skipif():
    assert True


@pytest.mark.xfail
def test_xfail_without_call():
    assert 1 == 2


@pytest.mark.xfail(strict=True, raises=ZeroDivisionError)
def test_xfail_with_call():
    assert 1 / 0


@mark.skip
def test_mark_imported_from_pytest():
    assert False


@requires_posix
def test_module_level_mark_alias():
    assert sys.platform != "win32"


@unittest.skip("not now")
def test_unittest_skip():
    assert False


@unittest.skipIf(True, "never")
def test_unittest_skipif():
    assert False


@unittest.skipUnless(False, "never")
def test_unittest_skipunless():
    assert False


@unittest.expectedFailure
def test_unittest_expected_failure():
    assert False


@skipIf(True, "bare, imported from unittest")
def test_bare_skipif_from_unittest():
    assert False


@expectedFailure
def test_bare_expected_failure_from_unittest():
    assert False


@pytest.mark.slow
@pytest.mark.skip
@pytest.mark.xfail
def test_several_marks_in_decorator_order():
    assert False


@pytest.mark.slow
def test_not_skipped_only_marked():
    assert True
