import pytest


def test_fine():
    assert 1 == 1


def test_broken(:
    assert True
