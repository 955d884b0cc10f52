"""Money rounding helpers for the invoicing service."""

from roundmath.cache import CacheMiss, RoundingCache
from roundmath.parsing import decimal_places, parse_amount, parse_packed_cents
from roundmath.rounding import round_half, round_to_cents, total

__all__ = [
    "CacheMiss",
    "RoundingCache",
    "decimal_places",
    "parse_amount",
    "parse_packed_cents",
    "round_half",
    "round_to_cents",
    "total",
]

__version__ = "0.4.2"
