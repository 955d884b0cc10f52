import pytest
from pytest import mark

CASES = [1, 2, 3]


@pytest.mark.parametrize("x", [1, 2, 3])
def test_literal_list(x):
    assert x > 0


@pytest.mark.parametrize("x, y", ((1, 2), (3, 4)))
def test_literal_tuple(x, y):
    assert x < y


@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("y", ["a", "b", "c"])
def test_stacked_product(x, y):
    assert x and y


@pytest.mark.parametrize("x", CASES)
def test_computed_name(x):
    assert x


@pytest.mark.parametrize("x", [i for i in range(3)])
def test_list_comprehension_is_not_literal(x):
    assert x >= 0


@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("y", CASES)
def test_stacked_with_unknown(x, y):
    assert x


@pytest.mark.parametrize("x", [*CASES, 4])
def test_starred_element_is_unknown(x):
    assert x


@pytest.mark.parametrize(argnames="x", argvalues=[10, 20])
def test_keyword_argvalues(x):
    assert x


@mark.parametrize("x", [])
def test_empty_argvalues(x):
    assert x


@pytest.mark.parametrize(
    "value, expected",
    [
        (1, 1),
        pytest.param(2, 3, marks=pytest.mark.xfail(reason="known bug")),
        pytest.param(4, 4, marks=[pytest.mark.slow, pytest.mark.skip]),
        pytest.param(5, 5, id="five"),
    ],
)
def test_params_with_marks(value, expected):
    assert value == expected


@pytest.mark.parametrize("y", [1, 2])
class TestClassParametrize:
    @pytest.mark.parametrize("x", [1, 2, 3])
    def test_method(self, x, y):
        assert x != y

    def test_plain(self, y):
        assert y


def test_not_parametrized():
    assert True
