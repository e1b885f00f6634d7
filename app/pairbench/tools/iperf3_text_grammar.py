"""iperf3's text output, line by line: the grammar of its interval, summary and other lines."""

from __future__ import annotations

import re
from typing import Final

# Lines longer than this are never run through a regex: iperf3 itself never prints more than
# ~150 characters per line, so such a line is garbage (ignored, or a ParseError when it starts
# with "[" and therefore claims to be a stream line).
MAX_LINE: Final = 4096

# One interval or summary line, everything in one pass. Every whitespace run sits between tokens
# of disjoint character classes and is possessive (``\s++``/``\s*+``, Python >= 3.11), so a
# failing match costs linear time even on a line full of spaces: no catastrophic backtracking.
# Numbers are matched loosely as ``[\d.]`` runs (faster); a float() that then fails is a
# ParseError. They are at most 32 characters (exponents 2 digits), so that every value is
# finite: a line with a longer one does not match, and its "[ id] a-b sec" prefix makes it a
# ParseError.
INTERVAL_RE: Final = re.compile(
    r"\[\s*+(\d+|SUM)\](?:\[([TR]X-[CS])\])?\s++"  # 1 id, 2 role (--bidir)
    r"([\d.]{1,32}+)-([\d.]{1,32}+)\s++sec\s++"  # 3 start, 4 end
    r"[\d.]+\s[KMGT]?Bytes\s++"  # transfer (unused)
    r"([\d.]{1,32}+)\s([KMGT]?(?:bits|Bytes))/sec"  # 5, 6 rate (bits; Bytes with -f K|M|G|T)
    r"(?:\s++(?:"
    r"(\d{1,32}+)\s++([\d.]{1,32}+)\s([KMGT]?Bytes)"  # 7 retr, 8-9 cwnd (TCP sender stream)
    r"|([\d.]{1,32}+)\sms\s++(\d{1,32}+|Unknown)/(\d{1,32}+)"  # 10 jitter, 11-12 lost/total (UDP)
    r"(?:\s++\(([-+]?(?:[\d.]{1,32}+(?:e[-+]?\d{1,2}+)?|nan|inf))%\))?"  # 13 loss % (%.2g)
    r"|(\d{1,32}+)"  # 14 retr (TCP [SUM] sender / summary) or datagrams (UDP sender)
    r"))?"
    r"\s*+(\(omitted\))?\s*+(sender|receiver)?\s*+\Z"  # 15 omitted (-O), 16 summary side
)
INTERVAL_MATCH: Final = INTERVAL_RE.match

# The fast path's lines: TCP or UDP sender interval lines, per stream (TCP: with retransmits
# and cwnd) or [SUM], printed with ASCII digits and single spaces inside numbers. Every line
# this matches, ``INTERVAL_RE`` matches too, with the same id, times, rate, count (its group
# 7 or 14) and cwnd, no role, no (omitted) and no summary side; [0-9] rather than Unicode \d
# and possessive quantifiers make it about twice as fast.
FAST_RE: Final = re.compile(
    r"\[ *+([0-9]++|SUM)\] ++([0-9.]{1,32}+)-([0-9.]{1,32}+) ++sec ++[0-9.]++ [KMGT]?Bytes ++"
    r"([0-9.]{1,32}+ [KMGT]?bits)/sec ++([0-9]{1,32}+)(?: ++([0-9.]{1,32}+ [KMGT]?Bytes))? *+\Z"
)
FAST_MATCH: Final = FAST_RE.match

# What makes a line "look like" an interval line (DESIGN §3). A line that matches this but not
# ``INTERVAL_RE`` is not iperf3 3.12 output: ParseError.
PREFIX_RE: Final = re.compile(r"\[\s*(\d+|SUM)\](\[[TR]X-[CS]\])?\s+([\d.]+)-([\d.]+)\s+sec")
CONNECTED_RE: Final = re.compile(r"\[\s*+\d+\]\s++local\s")

# Aggregate stream name for a role: the forward direction carries client->server data (TX-C on
# the client, RX-S on the server); without --bidir there is one direction, "sum".
SUM_KEY: Final[dict[str | None, str]] = {
    None: "sum",
    "TX-C": "sum",
    "RX-S": "sum",
    "RX-C": "sum-reverse",
    "TX-S": "sum-reverse",
}

# First characters of the non-bracket lines that matter ("iperf3: ...", "Accepted connection",
# "Connecting to host", "Server listening", "Server output:", "- - -" separators, -V's "Test
# Complete." and "CPU Utilization:"); every other line is only looked at for a time stamp.
CHATTER_FIRST: Final = frozenset("iACST-")


def percent(text: str, total: float, line: str) -> float:
    """A loss percentage; iperf 3.0's "0/0 (-nan%)" (no datagram in the interval) is 0 %."""
    value = float(text)
    if value != value:  # NaN
        if total == 0.0:
            return 0.0
        raise ValueError(line)
    return value
