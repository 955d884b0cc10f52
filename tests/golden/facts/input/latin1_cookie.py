# -*- coding: latin-1 -*-
"""Latin-1 source with a PEP 263 cookie: parses."""


def test_café_name():
    assert greet() == "café crème"


def test_euro_free():
    assert "µ" in units()
