"""Parsing amounts as customers and exports write them."""

import struct
from decimal import Decimal

_CURRENCY_SYMBOLS = "$€£"


def parse_amount(text):
    """Parse "12.50", "€ 3.10" or "-4" into a Decimal."""
    return Decimal(text.strip().lstrip(_CURRENCY_SYMBOLS).strip())


def decimal_places(text):
    """Significant digits after the decimal point: "1.250" -> 2."""
    exponent = Decimal(text).normalize().as_tuple().exponent
    return max(0, -exponent)


def parse_packed_cents(data):
    """Amounts in cents from a legacy export: little-endian signed 32-bit integers."""
    if len(data) % 4:
        raise ValueError(f"truncated export: {len(data)} bytes")
    return [value for (value,) in struct.iter_unpack("<i", data)]
