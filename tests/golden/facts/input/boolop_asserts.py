"""BoolOp asserts: ranks of every Compare operand, 3 for every other operand."""


def test_and_of_comparisons():
    assert a == 1 and b < 2


def test_or_with_truthy_operand():
    assert x in y or z


def test_only_truthy_operands():
    assert a and b


def test_nested_boolops():
    assert (a is None or a > 0) and (b != c or not d)


def test_boolop_with_chained_compare():
    assert 0 < a <= 1 and b
