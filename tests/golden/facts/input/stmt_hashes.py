"""Statement hashes: how much of a body survives an edit (the similarity that matches a
test across a renamed class or file)."""
import pytest


def test_original():
    value = compute(1, 2)
    assert value == 3
    with pytest.raises(ValueError):
        compute(-1, 2)
        compute(1, -2)


def test_reformatted(
):
    value = compute( 1,2 )
    assert value == 3  # a comment is no statement
    with pytest.raises(ValueError):
        compute(-1,
                2)
        compute(1, -2)


def test_extended():
    value = compute(1, 2)
    assert value == 3
    assert compute(0, 0) == 0
    with pytest.raises(ValueError):
        compute(-1, 2)
        compute(1, -2)


def test_block_edited():
    value = compute(1, 2)
    assert value == 3
    with pytest.raises(ValueError):
        compute(-1, 2)
        compute(1, -3)


def test_compound_headers():
    for x in range(3):
        if x:
            assert x > 0
        else:
            assert x == 0
    try:
        compute(x, x)
    except ValueError as exc:
        assert "x" in str(exc)
    finally:
        cleanup()
