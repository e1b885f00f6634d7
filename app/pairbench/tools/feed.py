"""Feeding a whole saved output to a parser, line by line."""

from __future__ import annotations

from pairbench.domain import Record, Summary
from pairbench.tools.base import Parser


def feed_text(parser: Parser, text: str) -> tuple[list[Record], Summary]:
    """Every line of ``text`` through ``parser``, then its summary (``ParseError`` propagates)."""
    records: list[Record] = []
    for line in text.split("\n"):
        records += parser.feed(line)
    return records, parser.close()
