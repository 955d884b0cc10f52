"""Class-based pytest tests, nested classes, shadowed definitions."""
import pytest


def test_module_level():
    assert 1 == 1


class TestOuter:
    def test_method(self):
        assert self is not None

    @classmethod
    def test_classmethod(cls, tmp_path):
        assert cls

    @staticmethod
    def test_staticmethod(monkeypatch, capsys):
        assert monkeypatch

    def helper(self):
        assert False

    class TestInner:
        def test_inner(self, request):
            assert request.node.name == "test_inner"

        class TestDeepest:
            async def test_deepest(self):
                assert True


class TestDuplicateMethod:
    def test_duplicate(self):
        assert compute() == 42

    def test_duplicate(self):
        """The second definition wins at runtime: only this one is a test."""
        pass


def test_module_duplicate():
    assert compute() == 1


def test_module_duplicate():
    assert compute()


class TestShadowed:
    def test_only_in_first_class(self):
        assert False


class TestShadowed:
    """Redefining the class replaces the earlier one entirely."""

    def test_only_in_second_class(self):
        assert 1 < 2


def test_keyword_only_and_positional_only(a, /, b, *args, c, **kwargs):
    assert a in b
