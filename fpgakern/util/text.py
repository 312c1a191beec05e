"""Small helpers for the words of messages."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun`` agreeing: "1 variant", "2 variants", "1 CU", "0 entries"
    (``many`` for nouns whose plural is not ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"
