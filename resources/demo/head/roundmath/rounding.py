"""Rounding rules for amounts printed on invoices."""

from decimal import ROUND_HALF_UP, Decimal


def round_half(value, digits=0):
    """Round ``value`` to ``digits`` decimal places, ties away from zero.

    Invoices round half a cent up: 0.125 -> 0.13, 2.5 -> 3.

    The built-in round() rounds ties to the even digit and works on the binary
    float (1.005 is stored as 1.00499...), so round the decimal text instead.
    """
    exponent = Decimal(1).scaleb(-digits)
    return float(Decimal(str(value)).quantize(exponent, rounding=ROUND_HALF_UP))


def round_to_cents(amount):
    """Round an amount to whole cents."""
    return round_half(amount, 2)


def total(lines):
    """Invoice total: every line is rounded to cents before it is added."""
    return round_to_cents(sum(round_to_cents(line) for line in lines))
