"""Latin-1 bytes without a coding cookie: a parse error."""


def test_cafe():
    assert greet() == "café"
