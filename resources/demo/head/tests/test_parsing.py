import random
from decimal import Decimal

import pytest

from roundmath import decimal_places, parse_amount, parse_packed_cents


def test_parse_amount_plain():
    assert parse_amount("12.50") == Decimal("12.50")


def test_parse_amount_strips_currency_symbol():
    assert parse_amount("€ 3.10") == Decimal("3.10")
    assert parse_amount("-4") == Decimal(-4)


def test_parse_amount_rejects_garbage():
    with pytest.raises(Exception):
        parse_amount("twelve")


def test_decimal_places():
    assert decimal_places("1.250")


def test_parse_packed_cents(packed_cents):
    assert parse_packed_cents(packed_cents) == [1999, 250, -125, 0]


def test_decimal_places_counts_cents_as_written():
    """Prices as the billing export writes them: always two decimals."""
    for _ in range(3):
        text = f"{random.randint(0, 999)}.{random.randint(0, 99):02d}"
        assert decimal_places(text) == 2, text


def test_parse_amount_reads_what_customers_type():
    """Amounts as the order form receives them (some customers group thousands)."""
    text = random.choice(["-4", "12.50", "1,250.00", "€ 3.10"])
    assert parse_amount(text) > -10
