"""Module pytestmark (list form), class decorators, class pytestmark."""
import unittest

import pytest

pytestmark = [pytest.mark.xfail(reason="module-wide"), pytest.mark.network]


def test_module_level_function():
    assert True


@pytest.mark.skip(reason="whole class")
class TestDecoratedClass:
    @pytest.mark.xfail
    def test_own_mark_then_class_mark(self):
        assert False

    def test_class_mark_only(self):
        assert False


class TestClassPytestmark:
    pytestmark = pytest.mark.skipif(True, reason="class pytestmark")

    def test_inherits_class_pytestmark(self):
        assert False


@unittest.skip("unittest class skip")
class TestUnittestClass(unittest.TestCase):
    def test_method(self):
        self.assertTrue(False)


@pytest.mark.slow
class TestOuter:
    pytestmark = [pytest.mark.db]

    @pytest.mark.skipif(True, reason="inner")
    class TestInner:
        @pytest.mark.xfail
        def test_nested(self):
            assert False
