"""Parsing a saved tool output without storing it (``pairbench parse``), and the failures of
parsing output and reading run parameters that the front ends report to the user."""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParamError as ParamError
from pairbench.tools.base import ParseError as ParseError

__all__ = ["ParamError", "ParseError", "ParsedOutput", "known_tool", "parse_output"]


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    """A whole tool output parsed: every record in order and the tool's summary."""

    tool: str
    records: list[Record]
    summary: Summary


def known_tool(name: str) -> str:
    """The name of a tool Pairbench can parse; ``ParamError`` naming the known tools."""
    from pairbench.tools.registry import get_tool  # every adapter: only when one is needed

    return get_tool(name).name


def parse_output(tool_name: str, text: str) -> ParsedOutput:
    """Parse ``text`` as the whole saved output of ``tool_name``, as its file parser reads a
    file. ``ParamError`` for an unknown tool, ``ParseError`` for text that cannot be the
    tool's; a run the output shows failing or cut short is told by the summary (``error``,
    ``complete``, ``reason``)."""
    from pairbench.tools.feed import feed_text
    from pairbench.tools.registry import get_tool

    tool = get_tool(tool_name)
    records, summary = feed_text(tool.file_parser(), text)
    return ParsedOutput(tool.name, records, summary)
