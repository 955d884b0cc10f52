import sys

import pytest

if sys.platform == "win32":
    pytestmark = pytest.mark.skip(reason="posix only")


def test_runs_everywhere_else():
    assert sys.platform != "win32"
