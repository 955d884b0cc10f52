"""Big top-level classes kept in one piece (or split again without them): what one
piece of the class could not see, or text a cut could not split."""
import pytest


class TestClassPytestmark:
    def test_before_pytestmark(self):
        assert True

    pytestmark = [pytest.mark.skip(reason="applies to the test above too")]

    def test_after_pytestmark(self):
        assert True


class TestPytestmarkInIf:
    def test_first(self):
        assert True

    if True:
        pytestmark = pytest.mark.xfail

    def test_second(self):
        assert True


class TestDuplicateMethod:
    def test_twice(self):
        assert False

    def test_other(self):
        assert 1 == 1

    def test_twice(self):
        """Only this definition is a test."""
        assert 2 == 2


class TestMethodShadowedByNestedClass:
    def test_name(self):
        assert False

    class test_name:
        def test_inside(self):
            assert True


class TestColumnZeroString:
    def test_before_text(self):
        assert True

    def test_text(self):
        text = """
class NotAClass:
    def test_not_a_test(self):
        assert False
"""
        assert text

    def test_after_text(self):
        assert 1 < 2


class TestBackslashHeader: \
        x = 1

def test_after_backslash_header():
    assert True


class TestOneLiner: pass


class TestTabIndented:
	def test_tab(self):
		assert True

	def test_tab_again(self):
		assert 1 == 1
