import pytest

from roundmath import round_half, round_to_cents, total


def test_round_half_keeps_exact_values():
    assert round_half(1.25, 2) == 1.25
    assert round_half(3.0) == 3


def test_round_half_ties_to_even():
    assert round_half(0.5) == 0
    assert round_half(2.5) == 2


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (1.26, 1, 1.3),
        (1.24, 1, 1.2),
        (-1.26, 1, -1.3),
        (7.0, 0, 7),
    ],
)
def test_round_half_cases(value, digits, expected):
    assert round_half(value, digits) == expected


def test_round_to_cents_half_cent():
    assert round_to_cents(0.125) == 0.12


def test_total_of_half_cent_lines():
    assert total([0.125] * 8) == pytest.approx(0.96, rel=1e-9)


def test_invoice_totals_match_golden(expected_totals):
    for number, invoice in expected_totals["invoices"].items():
        assert total(invoice["lines"]) == invoice["total"], number


class TestRoundToCents:
    def test_whole_amount(self):
        assert round_to_cents(10) == 10

    def test_negative_amount(self):
        assert round_to_cents(-3.333) == -3.33
