"""Rounding rules for amounts printed on invoices."""


def round_half(value, digits=0):
    """Round ``value`` to ``digits`` decimal places, ties away from zero.

    Invoices round half a cent up: 0.125 -> 0.13, 2.5 -> 3.
    """
    return round(value, digits)


def round_to_cents(amount):
    """Round an amount to whole cents."""
    return round_half(amount, 2)


def total(lines):
    """Invoice total: every line is rounded to cents before it is added."""
    return round_to_cents(sum(round_to_cents(line) for line in lines))
