"""Incremental parser for iperf 2 (2.0.x and 2.1.x) TCP client text output (DESIGN §3, §4)."""

from __future__ import annotations

import re
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text

__all__ = ["THROUGHPUT", "Iperf2TextParser", "parse_text_output"]

# iperf 2 never prints more than ~250 characters per line (``-e`` reports); a longer line is
# not iperf's: skipped, or a ParseError when it starts with "[" and so claims to be a report.
MAX_LINE: Final = 4096

_THR: Final = "throughput_bps"
# The one kind of record: an interval's throughput (the default reports carry nothing else).
THROUGHPUT: Final[tuple[str, ...]] = (_THR,)

# One report line, interval or whole-run, in both formats:
#   2.1.x: "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec"
#   2.0.x: "[  3]  0.0- 1.0 sec   112 MBytes   941 Mbits/sec"
#   -P:    "[SUM] 0.0000-1.0000 sec  5.08 GBytes  43.7 Gbits/sec"
# Anything after the rate (``-e`` columns, UDP jitter and loss) is accepted and ignored.
# Whitespace runs are possessive and numbers bounded: a failed match is linear.
_NUM: Final = r"[0-9]{1,15}+(?:\.[0-9]{1,9}+)?"
_REPORT_RE: Final = re.compile(
    r"\[ *+([0-9]{1,9}+|SUM(?:-[0-9]{1,9}+)?)\] *+"  # 1 id
    rf"({_NUM}) *+- *+({_NUM}) ++sec ++"  # 2 start, 3 end
    rf"{_NUM} [KMGT]?Bytes ++"  # transfer (unused)
    rf"({_NUM}) ([KMGT]?)(bits|Bytes)/sec"  # 4 rate, 5 prefix, 6 bits or Bytes (-f K|M|G)
    r"(?:[ \t].*+)?[\r\n]*+\Z"
)
_MATCH: Final = _REPORT_RE.match
# The fast path: the usual 2.1.x line, "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec",
# ASCII digits, rate in bits, nothing after it. Every line this matches, _REPORT_RE matches the
# same way (same id, times and rate).
_FAST_RE: Final = re.compile(
    r"\[ *+([0-9]{1,9}+|SUM)\] ([0-9]{1,9}+\.[0-9]{1,9}+)-([0-9]{1,9}+\.[0-9]{1,9}+) sec ++"
    r"[0-9]{1,15}+(?:\.[0-9]{1,9}+)? [KMGT]?Bytes ++"
    r"([0-9]{1,15}+(?:\.[0-9]{1,9}+)? [KMGT]?bits)/sec\Z"
)
_FAST_MATCH: Final = _FAST_RE.match
# What makes a line claim to be a report (interval, "sec", a transfer in Bytes); one that then
# does not match _REPORT_RE is a ParseError. 2.0.x UDP servers also print
# "[  3] 0.00-1.00 sec  6033 datagrams received out-of-order": not a report, chatter.
_REPORT_PREFIX_RE: Final = re.compile(
    r"\[ *+(?:[0-9]++|SUM[-0-9]*+)\] *+[0-9.]++ *+- *+[0-9.]++ ++sec ++[0-9.]++ [A-Za-z]*Bytes"
)
_CONNECTED_RE: Final = re.compile(r"\[ *+[0-9]++\] local .* connected with ")
# What fails before " failed: " ("tcp connect", "write", "listener bind"): words, no digits.
_FAILED_WHAT_RE: Final = re.compile(r"[A-Za-z][A-Za-z ]{0,40}")

# Rates: bits are 1000-based, the exponent appended to the printed digits (the float of what
# iperf printed, exactly); Bytes (``-f K|M|G``) are 1024-based.
_BIT_EXP: Final[dict[str, str]] = {"": "", "K": "e3", "M": "e6", "G": "e9", "T": "e12"}
_BYTES: Final[dict[str, float]] = {
    "": 1.0,
    "K": 1024.0,
    "M": 1024.0**2,
    "G": 1024.0**3,
    "T": 1024.0**4,
}

# How many distinct rate texts a parser remembers (iperf prints three significant digits).
_MAX_KNOWN: Final = 8192


class Iperf2TextParser:
    """Parser for iperf 2 TCP client output (``iperf -c HOST -t N -i 1 [-P n]``).

    Records, one per interval line: ``throughput_bps`` (bits 1000-based, bytes 1024-based,
    the float of the printed digits). Streams are iperf's ids ("1", "2", ...) and the
    aggregate "sum" (``[SUM]`` lines). With one stream iperf prints no ``[SUM]`` lines, so the
    stream's record is copied to "sum" (a second record, same values), as the iperf3 parser
    does: "sum" always exists. Whether there is one stream is known from the ``connected
    with`` lines (they come before the first report) and from any ``[SUM]`` line. ``t`` is the
    interval's end (2.1.x prints ``0.0000-1.0000``, 2.0.x ``0.0- 1.0``); an interval that
    does not advance its stream's time, or has no length, gives no record.

    iperf 2 prints no separator before its whole-run lines: a report that starts again at
    0 for a stream that already had intervals is that stream's whole-run line (with ``-P`` the
    streams' whole-run lines interleave with the last intervals). A run so short that a stream
    printed no interval before it is read as one interval, and the run as incomplete.

    Summary: ``throughput_bps`` of the whole-run line of "sum" (the ``[SUM]`` one, or the only
    stream's), exactly as printed: the client's own (sender) figure, since iperf 2 sends the
    server's TCP report to the server's terminal only. ``complete`` means that line was seen;
    without it (killed client) the time-weighted mean of the "sum" intervals. iperf 2 exits 0
    even when it could not connect, so ``error`` matters: a ``... connect failed: ...`` line or
    ``HOST: Unknown host`` (the whole line, iperf's own words); other ``... failed: ...`` lines
    (``write failed: Broken pipe``) are the error only when the whole-run line never came.
    ``iperf: ...`` warnings (an unrecognized option, after which iperf runs anyway) are ignored.
    A log of several runs starts afresh at each ``Client connecting to`` line.
    """

    __slots__ = (
        "_dur",
        "_error",
        "_final",
        "_last_t",
        "_nconn",
        "_rates",
        "_saw_sum",
        "_soft",
        "_weighted",
    )

    def __init__(self) -> None:
        self._rates: dict[str, float] = {}  # see _remember
        self._reset()

    def _reset(self) -> None:
        self._last_t: dict[str, float] = {}
        self._nconn = 0
        self._saw_sum = False
        self._weighted = 0.0  # sum of rate * length over the "sum" intervals
        self._dur = 0.0
        self._final: float | None = None
        self._error: str | None = None
        self._soft: str | None = None

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records of an interval line, else nothing."""
        m = _FAST_MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            sid, start_s, end_s, rate_s = m.groups()
            rate = self._rates.get(rate_s)
            if rate is None:
                number, _, unit = rate_s.partition(" ")
                rate = self._remember(rate_s, float(number + _BIT_EXP[unit[:-4]]))
            return self._report(sid, start_s, end_s, rate)
        return self._feed_general(line)

    def _feed_general(self, line: str) -> list[Record]:
        """Any line: chatter, errors, and every kind of report line."""
        if line[:1] != "[":
            self._other_line(line)
            return []
        if len(line) > MAX_LINE:
            raise ParseError(f"iperf2: line of {len(line)} characters: {line[:200]!r}")
        m = _MATCH(line)
        if m is None:
            if _REPORT_PREFIX_RE.match(line) is not None:
                raise ParseError(f"iperf2: malformed report line: {line[:200]!r}")
            if " connected with " in line and _CONNECTED_RE.match(line) is not None:
                self._nconn += 1
            return []  # "[ ID] Interval ..." headers and other bracketed chatter
        sid, start_s, end_s, rate_s, prefix, unit = m.groups()
        if unit == "bits":
            rate = float(rate_s + _BIT_EXP[prefix])
        else:
            rate = float(rate_s) * _BYTES[prefix] * 8.0
        return self._report(sid, start_s, end_s, rate)

    def _remember(self, text: str, rate: float) -> float:
        """Keep the value of a rate text ("22.9 Gbits"); iperf prints ~3 digits, so few recur."""
        rates = self._rates
        if len(rates) >= _MAX_KNOWN:
            rates.clear()
        rates[text] = rate
        return rate

    def _report(self, sid: str, start_s: str, end_s: str, rate: float) -> list[Record]:
        """An interval or whole-run line of stream ``sid`` (an id, ``SUM`` or ``SUM-n``)."""
        start = float(start_s)
        end = float(end_s)
        is_sum = sid[0] == "S"
        key = "sum" if is_sum else sid
        if is_sum:
            self._saw_sum = True
        copy = not is_sum and not self._saw_sum and self._nconn <= 1
        last_t = self._last_t
        last = last_t.get(key)
        if start == 0.0 and last is not None:  # the stream's whole-run line
            if is_sum or copy:
                self._final = rate
            return []
        if end <= start or (last is not None and end <= last):
            return []
        last_t[key] = end
        record = new_record(Record, (key, end, THROUGHPUT, (rate,)))
        if not (is_sum or copy):
            return [record]
        self._weighted += rate * (end - start)
        self._dur += end - start
        if is_sum:
            return [record]
        last_t["sum"] = end
        return [record, new_record(Record, ("sum", end, THROUGHPUT, (rate,)))]

    def _other_line(self, line: str) -> None:
        if len(line) > MAX_LINE:
            return
        text = line.strip()
        if text.startswith("Client connecting to "):
            self._reset()
        elif text.endswith(": Unknown host"):
            self._error = self._error or text
        elif " failed: " in text and _FAILED_WHAT_RE.fullmatch(text.partition(" failed: ")[0]):
            if text.partition(" failed: ")[0].endswith("connect"):
                self._error = self._error or text
            else:
                self._soft = self._soft or text
        # Banners, window sizes, "iperf: ..." warnings and everything else are chatter.

    def close(self) -> Summary:
        """The run's summary: iperf's whole-run figure when it printed one, else the intervals'."""
        values: dict[str, float] = {}
        complete = self._final is not None
        if self._final is not None:
            values[_THR] = self._final
        elif self._dur > 0.0:
            values[_THR] = self._weighted / self._dur
        error = self._error or (None if complete else self._soft)
        return Summary(values=values, complete=complete, error=error)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf 2 output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf2TextParser(), text)
