import sys
import unittest

import pytest


def test_pytest_skip_call():
    if sys.platform == "win32":
        pytest.skip("posix only")
    assert True


def test_pytest_xfail_call():
    pytest.xfail("known bug")
    assert False


def test_importorskip():
    np = pytest.importorskip("numpy")
    assert np.zeros(1)[0] == 0


def test_applymarker(request):
    request.applymarker(pytest.mark.xfail(reason="dynamic"))
    request.node.add_marker(pytest.mark.slow)
    assert False


@pytest.mark.skipif(True, reason="decorator first")
def test_decorator_then_body_calls():
    pytest.skip("body second")
    pytest.xfail("body third")


class TestCaseSkips(unittest.TestCase):
    def test_skiptest(self):
        self.skipTest("not today")
        self.assertTrue(False)

    def test_skip_in_nested_helper(self):
        def helper():
            pytest.skip("skips from a nested function still count")

        helper()
