"""Big top-level classes are parsed member by member (pieces of the class header and a
run of whole members): every kind of member, each test with its whole-class facts."""
import pytest

slow = pytest.mark.slow


class BaseChecks:
    """A base class in the same file: its tests are its own, not the subclass's."""

    def test_in_base(self):
        assert self.value() == 1


@pytest.mark.usefixtures("db")
@pytest.mark.parametrize(
    "n",
    [1, 2, 3],
)
@pytest.mark.skipif(sys.platform == "win32", reason="posix only")
class TestDecorated(
    BaseChecks,
    metaclass=Meta,  # a comment inside the header
):  # and after it
    """Docstring of the class."""

    # A comment before the first method.

    @pytest.mark.parametrize("x", [1, 2])
    @pytest.mark.parametrize(
        "y",
        [3,
    4],
    )
    def test_parametrized(self, n, x, y):
        assert n * x < y

    @slow
    # a comment between the decorator and the def
    def test_alias_mark(self):
        assert late_alias_mark

    async def test_async(self, client):
        response = await client.get("/")
        assert response.status == 200

    def helper(self):
        return """
    def test_not_a_member(self):
        assert False
    """

    value = 1 + \
    2

    if sys.version_info >= (3, 8):
        def test_in_if_block(self):
            assert False
    else:
        pass

    try:
        import numpy as np
    except ImportError:
        np = None
    finally:
        pass

    def test_uses_class_level_import(self):
        assert np.isclose(self.value, 3, rtol=1e-3)



    class TestNested:
        def test_nested(self, tmp_path):
            with pytest.raises(ValueError):
                int("x")

        class TestDeeper:
            @pytest.mark.xfail(strict=True)
            def test_deeper(self):
                self.assertAlmostEqual(1.0, 1.1, delta=0.2)

    @staticmethod
    def test_static(monkeypatch):
        assert approx_mod.approx(1.0, abs=0.5) == 1.2

    def test_skips_in_body(self):
        if not has_network():
            pytest.skip("no network")
        assert fetch() == "ok"


def test_between_classes():
    assert True


class TestSubclass(BaseChecks):
    def test_own(self):
        assert self.value() >= 1
    def test_no_blank_line_before(self):
        assert 1 in [1]
    def helper(self): return 2
    def test_after_one_liner(self): assert self.helper() == 2


import pytest as approx_mod  # noqa: E402  (an import below the tests it resolves)
late_alias_mark = pytest.mark.late


@pytest.mark.xfail(reason="last statement of the file")
class TestAtEndOfFile:
    @pytest.mark.parametrize("z", [pytest.param(0, marks=pytest.mark.skip), 1])
    def test_last(self, z):
        assert z >= 0

    async def test_really_last(self):
        assert await ready()
