"""Twins for the body hash: a pure rename keeps it; any other change moves it."""
import pytest


def test_original(tmp_path):
    value = compute(tmp_path)
    assert value == 42


def test_renamed_copy(tmp_path):
    value = compute(tmp_path)
    assert value == 42


def test_changed_literal(tmp_path):
    value = compute(tmp_path)
    assert value == 43


def test_changed_argument(tmp_dir):
    value = compute(tmp_path)
    assert value == 42


@pytest.mark.slow
def test_added_decorator(tmp_path):
    value = compute(tmp_path)
    assert value == 42


async def test_async_twin(tmp_path):
    value = compute(tmp_path)
    assert value == 42


def test_reformatted_copy(tmp_path):
    value = compute(
        tmp_path,
    )
    # a comment changes nothing
    assert (value == 42)
