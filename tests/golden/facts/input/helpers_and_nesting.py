"""Helpers and nested test-named functions are not tests; imports are collected."""
import os
import os.path
import xml.etree.ElementTree as ET
from collections import OrderedDict
from . import conftest_helpers
from .fixtures import make_thing

import mypkg.sub


def helper(value):
    assert value
    return value


def make_test_data():
    def test_nested_in_helper():
        assert False

    return test_nested_in_helper


def test_outer():
    import json

    def test_inner_is_not_collected():
        assert False

    class TestLocal:
        def test_local_method(self):
            assert False

    assert json.loads("1") == 1
    assert helper(os.sep)


class NotATestClassButStillScanned:
    def test_in_plain_class(self):
        assert OrderedDict() == {}


class TestWithHelper:
    def _helper(self):
        assert True

    def check_something(self):
        assert True

    def test_uses_helper(self):
        self._helper()


testing_constant = 3
