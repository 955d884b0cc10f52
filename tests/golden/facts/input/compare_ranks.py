"""Plain asserts: one rank per comparison operator, truthiness, other expressions."""


def test_equality_family():
    x = compute()
    assert x == 1
    assert x != 2
    assert x is None
    assert x is not None


def test_ordering_family():
    assert size() < 10
    assert size() <= 10
    assert size() > 0
    assert size() >= 0


def test_membership_family():
    assert "a" in letters()
    assert "z" not in letters()


def test_chained_comparisons():
    assert 0 <= value() < 10
    assert a == b == c
    assert a < b in c


def test_truthiness():
    flag = True
    assert flag
    assert obj.attribute
    assert not failed
    assert callable(thing)
    assert items[0]
    assert True


def test_other_expressions_rank_two():
    assert x + y
    assert (x, "forgot to drop the parentheses")
    assert [1, 2]
    assert x if y else z


def test_message_is_not_part_of_the_assertion():
    assert result() == 3, "result should be three"


def test_no_assertions_at_all():
    compute()
