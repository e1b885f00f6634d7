"""Feeding a whole saved output to a parser, line by line."""

from __future__ import annotations

from pairbench.domain import Sample, Summary
from pairbench.tools.base import Parser


def feed_text(parser: Parser, text: str) -> tuple[list[Sample], Summary]:
    """Every line of ``text`` through ``parser``, then its summary (``ParseError`` propagates)."""
    samples: list[Sample] = []
    for line in text.split("\n"):
        samples.extend(parser.feed(line))
    return samples, parser.close()
