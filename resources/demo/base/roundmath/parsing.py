"""Parsing amounts as customers and exports write them."""

import re
import struct
from decimal import Decimal

_AMOUNT = re.compile(r"-?\d+(\.\d+)?")
_CURRENCY_SYMBOLS = "$€£"


def parse_amount(text):
    """Parse "12.50", "€ 3.10" or "-4" into a Decimal; anything else is a ValueError."""
    cleaned = text.strip().lstrip(_CURRENCY_SYMBOLS).strip()
    if not _AMOUNT.fullmatch(cleaned):
        raise ValueError(f"not an amount: {text!r}")
    return Decimal(cleaned)


def decimal_places(text):
    """Digits after the decimal point as written: "1.250" -> 3."""
    exponent = Decimal(text).as_tuple().exponent
    return max(0, -exponent)


def parse_packed_cents(data):
    """Amounts in cents from a legacy export: little-endian signed 32-bit integers."""
    if len(data) % 4:
        raise ValueError(f"truncated export: {len(data)} bytes")
    return [value for (value,) in struct.iter_unpack("<i", data)]
