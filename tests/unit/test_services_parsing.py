"""services.parsing: a saved output parsed as the tool's file parser reads it; unknown tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.services.parsing import ParamError, ParseError, known_tool, parse_output
from pairbench.tools.feed import feed_text
from pairbench.tools.registry import TOOLS

CAPTURE = Path(__file__).parents[1] / "data" / "fixtures" / "ping" / "c20_s1400_i02_D.out"


def test_known_tool_accepts_every_registered_tool() -> None:
    assert [known_tool(name) for name in TOOLS] == list(TOOLS)


def test_unknown_tool_names_the_known_ones() -> None:
    with pytest.raises(ParamError) as caught:
        known_tool("iperf9")
    assert "iperf9" in str(caught.value)
    assert all(name in str(caught.value) for name in TOOLS)
    with pytest.raises(ParamError):
        parse_output("iperf9", "anything")


def test_parse_output_is_the_file_parser_over_the_whole_text() -> None:
    text = CAPTURE.read_text()
    parsed = parse_output("ping", text)
    records, summary = feed_text(TOOLS["ping"].file_parser(), text)
    assert parsed.tool == "ping"
    assert parsed.records == records and len(records) > 10
    assert parsed.summary == summary
    assert summary.values["rtt_avg_ms"] > 0


def test_text_that_is_not_the_tools_output_raises_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_output("iperf3", "[  5]   0.00-1.00   sec  garbage here\n")
