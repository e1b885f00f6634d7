"""Incremental parser for iperf3's text output (3.0 to 3.21), client and server, every form."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text

# The metric names and the metrics tuple of each kind of interval line (shared with the JSON
# parser: every Record of a kind shares one tuple, which the recorder keys its buffers on).
from pairbench.tools.iperf3_metrics import JITTER as _JIT
from pairbench.tools.iperf3_metrics import LOST as _LOST
from pairbench.tools.iperf3_metrics import LOST_PERCENT as _LOSTPCT
from pairbench.tools.iperf3_metrics import PACKETS as _PKTS
from pairbench.tools.iperf3_metrics import RETRANSMITS as _RETR
from pairbench.tools.iperf3_metrics import SERVER_PREFIX, IntervalTotals
from pairbench.tools.iperf3_metrics import TCP_RECV as _TCP_RECV
from pairbench.tools.iperf3_metrics import TCP_SEND as _TCP_SEND
from pairbench.tools.iperf3_metrics import TCP_SUM_SEND as _TCP_SUM_SEND
from pairbench.tools.iperf3_metrics import THROUGHPUT as _THR
from pairbench.tools.iperf3_metrics import UDP_RECV as _UDP_RECV
from pairbench.tools.iperf3_metrics import UDP_SEND as _UDP_SEND
from pairbench.tools.iperf3_text_forms import BIT_EXP as _BIT_EXP
from pairbench.tools.iperf3_text_forms import BYTES as _BYTES
from pairbench.tools.iperf3_text_forms import UnitForm, body_offset, form_name, rate_from_transfer

__all__ = ["Iperf3TextParser", "parse_text_output", "server_streams"]

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
_INTERVAL_RE: Final = re.compile(
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
_MATCH: Final = _INTERVAL_RE.match

# The fast path's lines: TCP or UDP sender interval lines, per stream (TCP: with retransmits
# and cwnd) or [SUM], printed with ASCII digits and single spaces inside numbers. Every line
# this matches, ``_INTERVAL_RE`` matches too, with the same id, times, rate, count (its group
# 7 or 14) and cwnd, no role, no (omitted) and no summary side; [0-9] rather than Unicode \d
# and possessive quantifiers make it about twice as fast.
_FAST_RE: Final = re.compile(
    r"\[ *+([0-9]++|SUM)\] ++([0-9.]{1,32}+)-([0-9.]{1,32}+) ++sec ++[0-9.]++ [KMGT]?Bytes ++"
    r"([0-9.]{1,32}+ [KMGT]?bits)/sec ++([0-9]{1,32}+)(?: ++([0-9.]{1,32}+ [KMGT]?Bytes))? *+\Z"
)
_FAST_MATCH: Final = _FAST_RE.match

# What makes a line "look like" an interval line (DESIGN §3). A line that matches this but not
# ``_INTERVAL_RE`` is not iperf3 3.12 output: ParseError.
_PREFIX_RE: Final = re.compile(r"\[\s*(\d+|SUM)\](\[[TR]X-[CS]\])?\s+([\d.]+)-([\d.]+)\s+sec")
_CONNECTED_RE: Final = re.compile(r"\[\s*+\d+\]\s++local\s")

# Aggregate stream name for a role: the forward direction carries client->server data (TX-C on
# the client, RX-S on the server); without --bidir there is one direction, "sum".
_SUM_KEY: Final[dict[str | None, str]] = {
    None: "sum",
    "TX-C": "sum",
    "RX-S": "sum",
    "RX-C": "sum-reverse",
    "TX-S": "sum-reverse",
}

# First characters of the non-bracket lines that matter ("iperf3: ...", "Accepted connection",
# "Connecting to host", "Server listening", "Server output:", "- - -" separators, -V's "Test
# Complete." and "CPU Utilization:"); every other line is only looked at for a time stamp.
_CHATTER_FIRST: Final = frozenset("iACST-")

# A printed transfer, for a rate printed with fewer than 3 digits (-f with a large unit).
_TRANSFER_RE: Final = re.compile(r"sec\s++([\d.]{1,32}+)\s([KMGT]?Bytes)\s")

# Why a summary is incomplete although the tool ended normally: what the form cannot carry.
REASON_SERVER_TCP: Final = (
    "iperf3's server output has no TCP retransmits: the sending client counts them"
)
REASON_SERVER_UDP_SENDER: Final = (
    "the sending server's output has no receiver figures (throughput received, jitter, loss)"
)
REASON_OLD_UDP_CLIENT: Final = (
    "the client's UDP summary of iperf3 before 3.2 gives the sender's rate only:"
    " no receiver throughput (jitter and loss are the receiver's)"
)
REASON_ZERO_UDP_SUMMARY: Final = (
    "the UDP summary line says 0 bits/sec although datagrams arrived (iperf3 3.1's server):"
    " throughput_bps is the intervals' mean"
)
REASON_LOST_UNKNOWN: Final = "iperf3 printed the datagrams lost as Unknown (-O with UDP)"

# ``tuple.__new__(Record, ...)`` builds a real Record about twice as fast as ``Record(...)``
# (whose generated ``__new__`` is a Python function); this is the ingest hot path.
_new_record: Final[
    Callable[[type[Record], tuple[str, float, tuple[str, ...], tuple[float, ...]]], Record]
] = tuple.__new__

# How many distinct rate and size texts ("14.2 Gbits", "458 KBytes") a parser remembers; iperf3
# prints three significant digits, so a long run repeats a few thousand of them.
_MAX_KNOWN: Final = 8192

# A parsed summary line: rate, retransmits, jitter, lost, total, lost %.
_SummaryLine = tuple[float, float | None, float | None, float | None, float | None, float | None]


class Iperf3TextParser:
    """Parser for the text output of iperf3 3.0 to 3.21 (``iperf3 -c ...`` or ``iperf3 -s ...``).

    Every form, told line by line (``form``, e.g. "text --timestamps -f M"): a time stamp of
    any strftime format before the lines (``--timestamps``: iperf3's text is found after it),
    rates in a fixed unit (``-f kmgtKMGT``; a rate printed with fewer than 3 digits, "0.05
    Gbits/sec", is taken from the transfer beside it), ``-V``'s extra lines, the server's
    output after "Server output:" (``--get-server-output``: its records are streams
    "server-5", "server-sum"; the summary stays the client's), a ``--logfile`` (the same
    text), and the older versions' lines (a UDP summary without "sender"/"receiver" before
    3.2, "Unknown" losses, out-of-order lines).

    Records, one per interval line (metrics in this order): ``throughput_bps`` for every
    interval line; TCP sender lines add ``retransmits`` and (per stream, not on ``[SUM]``)
    ``cwnd_bytes``; UDP receiver lines add ``jitter_ms``, ``lost_packets``, ``packets`` and
    ``lost_percent``; UDP sender lines add ``packets``. ``t`` is the interval's end time.
    Streams are the iperf3 ids ("5", "7", ...) plus the aggregate "sum" (with --bidir, "sum"
    is client->server data and "sum-reverse" the other way). With one stream per direction
    iperf3 prints no ``[SUM]`` line, so the parser copies that stream's record to the
    aggregate (a second record, same values): "sum" always exists.

    Skipped intervals (no records): ``(omitted)`` ones from ``-O`` (counted in
    ``omitted_intervals``; iperf3 restarts the clock at 0 after them), zero-length ones such
    as the server's trailing ``5.00-5.00`` (a few ms of data, already inside the summary), and
    an interval that does not advance its stream's time (the server repeats the last interval
    when its client is interrupted), so each stream's times strictly increase.

    Summary: ``throughput_bps`` is the forward aggregate's ``receiver`` line (a sending server,
    which prints no receiver line, gives its ``sender`` line), ``throughput_reverse_bps`` the
    reverse one's (--bidir); ``sender_throughput_bps`` and TCP ``retransmits`` come from the
    ``sender`` line, UDP ``jitter_ms``/``lost_packets``/``packets``/``lost_percent`` from the
    receiver line: all exactly as printed. ``complete`` means that receiver line was seen.
    Without it (a truncated or killed run), the values come from the aggregate's intervals:
    the time-weighted mean throughput, summed counters, the last jitter. Summary lines that
    iperf3 prints but that are known to be wrong are treated as missing: after the client's
    ``iperf3: interrupt - ...`` the side it never heard from says "0.00 bits/sec", and after
    the server's ``iperf3: the client has terminated`` its summary used the wrong duration.
    ``error`` is the text after ``iperf3: error - `` (or the whole ``iperf3: ...`` message).

    A server log holding several tests starts afresh at each ``Accepted connection`` line;
    the summary is then the last test's.
    """

    __slots__ = (
        "_accs",
        "_error",
        "_in_summary",
        "_interrupted",
        "_last_t",
        "_nconn",
        "_nested",
        "_omitted",
        "_peer_terminated",
        "_quantities",
        "_saw_sep",
        "_saw_sum",
        "_section",
        "_server",
        "_server_output",
        "_sideless",
        "_stamped",
        "_summ",
        "_udp",
        "_units",
        "_verbose",
    )

    def __init__(self, *, server_section: bool = False) -> None:
        """``server_section``: this parser reads the server's output inside a client's
        (--get-server-output), so it opens no such section of its own."""
        self._omitted = 0
        self._server = False
        self._quantities: dict[str, float] = {}  # see _quantity
        self._stamped = False  # a line had a time stamp before it (--timestamps)
        self._units = UnitForm()
        self._verbose = False
        self._server_output = False
        # After "Server output:" (--get-server-output): the server's text, read by its own
        # parser until the client's "iperf Done." or message; its records are "server-" ones.
        self._section: Iperf3TextParser | None = None
        self._nested = server_section
        self._reset()

    def _reset(self) -> None:
        self._nconn = 0  # "[  5] local ... connected to ..." lines: the number of streams
        self._saw_sum = False
        self._udp = False
        self._interrupted = False
        self._peer_terminated = False
        self._error: str | None = None
        self._last_t: dict[str, float] = {}
        self._accs: dict[str, IntervalTotals] = {}
        self._summ: dict[tuple[str, str], _SummaryLine] = {}
        self._saw_sep = False  # a "- - -" separator line was seen
        self._in_summary = False  # a "[ ID]" header came after a separator: the summary
        self._sideless = False  # a UDP summary line without "sender"/"receiver" (< 3.2)

    @property
    def omitted_intervals(self) -> int:
        """How many ``(omitted)`` interval lines (iperf3 ``-O``) were seen and skipped."""
        return self._omitted

    @property
    def is_server(self) -> bool:
        """True once the output is recognised as the server's (banner or accepted connection)."""
        return self._server

    @property
    def form(self) -> str:
        """The output form seen so far: "text" and the options it shows."""
        return form_name(
            stamped=self._stamped,
            letter=self._units.letter(),
            verbose=self._verbose,
            server_output=self._server_output,
        )

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (may be empty)."""
        if self._section is not None:
            return self._server_line(line)
        # The fast path: TCP sender interval lines (per stream with retransmits and cwnd, or
        # [SUM] with retransmits) and UDP sender lines, about all of a long run's output. It
        # accepts only lines that the general path would read the same way (see _FAST_RE),
        # and changes no state until every number converted; anything else, including a
        # malformed number (the ParseError and its rollback), is left to _feed_general.
        m = _FAST_MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            sid, start_s, end_s, rate_s, n_s, cwnd_s = m.groups()
            # Else zero-length (see _feed_general), or a rate below 1 that may have too few
            # digits (-f with a large unit; or "0.00 bits"): the general path reads those.
            if start_s != end_s and rate_s[0] != "0":
                if sid == "SUM":
                    key = agg = "sum"
                elif self._saw_sum or self._nconn > 1:
                    key, agg = sid, None
                else:
                    key, agg = sid, "sum"  # one stream, no [SUM] lines: copied to "sum"
                known = self._quantities
                cwnd = 0.0
                try:
                    t = float(end_s)
                    rate = known.get(rate_s)
                    if rate is None:
                        rate = self._quantity(rate_s)
                    n = float(n_s)
                    if cwnd_s is not None:
                        known_cwnd = known.get(cwnd_s)
                        cwnd = self._quantity(cwnd_s) if known_cwnd is None else known_cwnd
                    dur = 0.0 if agg is None else t - float(start_s)
                except (ValueError, KeyError):
                    pass
                else:
                    if sid == "SUM":
                        self._saw_sum = True
                    last_t = self._last_t
                    last = last_t.get(key)
                    if last is not None and t <= last:
                        return []  # a repeated interval (server side, interrupted client)
                    last_t[key] = t
                    metrics: tuple[str, ...]
                    values: tuple[float, ...]
                    if cwnd_s is not None:
                        metrics, values = _TCP_SEND, (rate, n, cwnd)
                    elif self._udp:
                        metrics, values = _UDP_SEND, (rate, n)
                    else:
                        metrics, values = _TCP_SUM_SEND, (rate, n)
                    record = _new_record(Record, (key, t, metrics, values))
                    if agg is None:
                        return [record]
                    acc = self._acc_add(agg, dur, rate)
                    if metrics is _UDP_SEND:
                        acc.pkts = (acc.pkts or 0.0) + n
                    else:
                        acc.retr = (acc.retr or 0.0) + n
                    if agg == key:
                        return [record]
                    last_t[agg] = t
                    return [record, _new_record(Record, (agg, t, metrics, values))]
        return self._feed_general(line)

    def _quantity(self, text: str) -> float:
        """A rate ("14.2 Gbits": bit/s) or size ("458 KBytes": bytes) as printed, remembered."""
        number, _, unit = text.partition(" ")
        exp = _BIT_EXP.get(unit)
        if exp is not None:
            value = float(number + exp)
            self._units.note(number, unit)
        else:
            value = float(number) * _BYTES[unit]
        known = self._quantities
        if len(known) >= _MAX_KNOWN:
            known.clear()
        known[text] = value
        return value

    def _feed_general(self, line: str, stamped: bool = False) -> list[Record]:
        """Any line: chatter, headers, summaries and every kind of interval line.

        ``stamped``: ``line`` is what followed a time stamp (no second one is looked for).
        """
        first = line[:1]
        if first != "[":
            if first in _CHATTER_FIRST and self._other_line(line):
                return []
            return self._after_stamp(line, stamped)
        if len(line) > MAX_LINE:
            raise ParseError(f"iperf3: line of {len(line)} characters: {line[:200]!r}")
        m = _MATCH(line)
        if m is None:
            if self._unmatched_bracket_line(line):
                return []
            return self._after_stamp(line, stamped)
        groups = m.groups()
        (
            sid,
            role,
            start_s,
            end_s,
            rate_s,
            rate_u,
            retr,
            cwnd_s,
            cwnd_u,
            jit,
            lost,
            total,
            pct,
            single,
            omitted,
            side,
        ) = groups
        if (
            side is not None
            or omitted is not None
            or start_s == end_s
            or (jit is not None and self._in_summary)
        ):
            # A summary line (before 3.2 a UDP one says neither "sender" nor "receiver"); an
            # (omitted) one (-O); or zero-length, e.g. the server's last "5.00-5.00" (a few ms
            # of data that the summary already holds): no records.
            self._rare_line(line, groups)
            return []
        saw_sum = self._saw_sum
        key_set: str | None = None  # the entry of _last_t this line set, for a rollback
        last: float | None = None
        try:
            t = float(end_s)
            rate = self._rate(rate_s, rate_u, line, start_s, end_s)  # (before any return)
            if sid == "SUM":
                key = _SUM_KEY[role]
                self._saw_sum = True
                agg: str | None = key
            else:
                key = sid
                if self._saw_sum or self._nconn > (1 if role is None else 2):
                    agg = None
                else:
                    agg = _SUM_KEY[role]  # one stream per direction, no [SUM] lines: copy
            last_t = self._last_t
            last = last_t.get(key)
            if last is not None and t <= last:
                return []  # a repeated interval (server side, interrupted client)
            last_t[key] = t
            key_set = key
            values: tuple[float, ...]
            count = jitter = lost_n = total_n = 0.0
            if retr is not None:  # TCP sender, one stream
                metrics = _TCP_SEND
                count = float(retr)
                values = (rate, count, float(cwnd_s) * _BYTES[cwnd_u])
            elif single is not None:  # TCP [SUM] sender (retransmits) or UDP sender (datagrams)
                metrics = _UDP_SEND if self._udp else _TCP_SUM_SEND
                count = float(single)
                values = (rate, count)
            elif jit is not None:  # UDP receiver
                if pct is None:  # "Unknown/N" is a summary's, never an interval's
                    raise ValueError(line)
                metrics = _UDP_RECV
                jitter, lost_n, total_n = float(jit), float(lost), float(total)
                values = (rate, jitter, lost_n, total_n, _percent(pct, total_n, line))
            else:  # TCP receiver
                metrics = _TCP_RECV
                values = (rate,)
            record = _new_record(Record, (key, t, metrics, values))
            if agg is None:
                return [record]
            acc = self._acc(agg, t, start_s, rate)
            if metrics is _UDP_SEND:
                acc.pkts = (acc.pkts or 0.0) + count
            elif metrics is _UDP_RECV:
                acc.jitter = jitter
                acc.lost = (acc.lost or 0.0) + lost_n
                acc.rx_pkts = (acc.rx_pkts or 0.0) + total_n
            elif metrics is not _TCP_RECV:
                acc.retr = (acc.retr or 0.0) + count
            if agg == key:
                return [record]
            last_t[agg] = t
            return [record, _new_record(Record, (agg, t, metrics, values))]
        except (ValueError, KeyError) as exc:  # e.g. "1.2.3" matched by [\d.]+
            # Leave the state as it was, so that the caller may go on feeding.
            self._saw_sum = saw_sum
            if key_set is not None:
                if last is None:
                    del self._last_t[key_set]
                else:
                    self._last_t[key_set] = last
            raise ParseError(f"iperf3: malformed interval line: {line[:200]!r}") from exc

    def _after_stamp(self, line: str, stamped: bool) -> list[Record]:
        """A line that iperf3's text may follow a time stamp in (``--timestamps[=FORMAT]``)."""
        if stamped or len(line) > MAX_LINE:
            return []
        offset = body_offset(line)
        if offset <= 0:
            return []  # chatter (-V details, blank lines, usage text, anything else)
        self._stamped = True
        return self._feed_general(line[offset:], True)

    def _rate(self, number: str, unit: str, line: str, start: str, end: str) -> float:
        """A printed rate in bit/s; from the printed transfer when the rate has fewer digits.

        ``-f`` with a unit too large prints "0.05 Gbits/sec" or even "0.00 TBytes/sec"; the
        transfer beside it ("5.84 MBytes", 3 digits) over the interval's length is then the
        better of iperf3's own figures. ``ValueError`` or ``KeyError`` if malformed.
        """
        exp = _BIT_EXP.get(unit)
        rate = float(number + exp) if exp is not None else float(number) * _BYTES[unit] * 8.0
        self._units.note(number, unit)
        if number[:2] == "0." and unit not in ("bits", "Bytes"):
            m = _TRANSFER_RE.search(line)
            if m is not None:
                seconds = float(end) - float(start)
                better = rate_from_transfer(m.group(1), m.group(2), seconds)
                if better is not None:
                    return better
        return rate

    def _server_line(self, line: str) -> list[Record]:
        """A line after "Server output:": the server's, until the client's own end or message."""
        section = self._section
        assert section is not None
        if "iperf Done." in line or "iperf3: " in line:
            self._section = None
            return self.feed(line)
        return server_streams(section.feed(line))

    def _rare_line(self, line: str, groups: tuple[str | Any, ...]) -> None:
        if groups[15] is not None or (
            self._in_summary and groups[14] is None and groups[9] is not None
        ):
            try:
                self._summary_line(line, groups)
            except (ValueError, KeyError) as exc:
                raise ParseError(f"iperf3: malformed summary line: {line[:200]!r}") from exc
        elif groups[14] is not None:
            self._omitted += 1

    def _acc(self, agg: str, t: float, start_s: str, rate: float) -> IntervalTotals:
        """The running totals of an aggregate, with this interval's throughput added."""
        acc = self._accs.get(agg)
        if acc is None:
            acc = self._accs[agg] = IntervalTotals()
        dur = t - float(start_s)
        if dur > 0.0:
            acc.weighted += rate * dur
            acc.dur += dur
        return acc

    def _acc_add(self, agg: str, dur: float, rate: float) -> IntervalTotals:
        """As ``_acc``, with the interval's length already known."""
        acc = self._accs.get(agg)
        if acc is None:
            acc = self._accs[agg] = IntervalTotals()
        if dur > 0.0:
            acc.weighted += rate * dur
            acc.dur += dur
        return acc

    def _unmatched_bracket_line(self, line: str) -> bool:
        """A bracketed line that is no interval or summary line; False: none of iperf3's."""
        if _PREFIX_RE.match(line) is not None:
            if line.endswith(" datagrams received out-of-order"):
                return True  # "[  5]  0.0- 3.0 sec  2 datagrams received out-of-order"
            raise ParseError(f"iperf3: malformed interval line: {line[:200]!r}")
        if " connected to " in line and _CONNECTED_RE.match(line) is not None:
            self._nconn += 1
        elif line.startswith("[ ID]"):  # a column header
            if "Datagrams" in line:  # "... Total Datagrams" / "... Lost/Total Datagrams"
                self._udp = True
            if self._saw_sep:
                self._in_summary = True
        else:
            # "[  4] Sent 886 datagrams" (< 3.2), "[  5] (sender statistics not available)";
            # anything else may be a time stamp in brackets ("[%S] ") before iperf3's text.
            return body_offset(line) == 0
        return True

    def _other_line(self, line: str) -> bool:
        """A line that begins with a letter of ``_CHATTER_FIRST``; False: none of iperf3's."""
        if len(line) > MAX_LINE:
            return True
        if line.startswith("- - - "):
            self._saw_sep = True
        elif line.startswith("iperf3: "):
            msg = line[8:].rstrip()
            if msg.startswith("error - "):
                msg = msg[8:]
            if msg.startswith("interrupt - "):
                self._interrupted = True  # (client) see _summary_of
            elif msg in ("the client has terminated", "the server has terminated"):
                self._peer_terminated = True  # see _summary_of
            if self._error is None:
                self._error = msg
        elif line.startswith("Accepted connection from "):
            self._server = True
            self._reset()
        elif line.startswith("Connecting to host "):
            self._reset()
        elif line.startswith("Server listening on "):
            self._server = True
        elif line.startswith("Server output:"):
            if not self._nested:
                self._server_output = True
                self._section = Iperf3TextParser(server_section=True)
        elif line.startswith(("Test Complete. ", "CPU Utilization: ")):
            self._verbose = True
        elif not line.startswith(("iperf Done.", "-----", "Starting Test: ")):
            return False
        # Everything else (banners, warnings, -V details, usage text) is chatter.
        return True

    def _summary_line(self, line: str, groups: tuple[str | Any, ...]) -> None:
        sid, role, start_s, end_s, rate_s, rate_u, retr = groups[:7]
        jit, lost, total, pct, single, _, side = groups[9:]
        if sid != "SUM" and (self._saw_sum or self._nconn > (1 if role is None else 2)):
            return  # a per-stream summary line of a multi-stream test: [SUM] has the totals
        if side is None:  # a UDP summary before 3.2: the server's is the receiver's figures;
            side = "receiver" if self._server else "sender"  # the client's rate is sent data
            self._sideless = not self._server
        retr_v: float | None = None
        if retr is not None:
            retr_v = float(retr)
        elif single is not None and not self._udp:
            retr_v = float(single)
        rate = self._rate(rate_s, rate_u, line, start_s, end_s)
        if jit is not None and pct is None and lost != "Unknown":
            raise ValueError(line)  # a count of lost datagrams goes with its percentage
        self._summ[(_SUM_KEY[role], side)] = (
            rate,
            retr_v,
            None if jit is None else float(jit),
            None if lost is None or lost == "Unknown" else float(lost),
            None if total is None else float(total),
            None if pct is None else _percent(pct, float(total or 0), line),
        )

    def _summary_of(self, key: str, side: str) -> _SummaryLine | None:
        """A usable summary line of an aggregate, or None (absent or known to be bogus)."""
        line = self._summ.get((key, side))
        if line is None or self._peer_terminated:
            # "the client has terminated" (server) or "error - the server has terminated"
            # (client: its server was stopped first) follows a summary computed over the wrong
            # duration (iperf3 3.12 divides all the bytes by the last full interval's end), and
            # the client's receiver line is then "0.00 bits/sec": figures never sent to it.
            return None
        if line[0] == 0.0 and (self._interrupted or self._unreported(key, side, line)):
            # Client: after "iperf3: interrupt - the client has terminated" iperf3 prints the
            # side whose figures never came back from the server as "0.00 bits/sec".
            return None
        return line

    def _unreported(self, key: str, side: str, line: _SummaryLine) -> bool:
        """A receiver line of zero beside a sender line that sent something: the receiver's
        figures never came (however the run ended; its stderr message may be missing). UDP
        with datagrams counted (all lost) is a real zero."""
        if side != "receiver" or (line[3] or 0.0) > 0.0 or (line[4] or 0.0) > 0.0:
            return False
        sender = self._summ.get((key, "sender"))
        return sender is not None and sender[0] > 0.0

    def close(self) -> Summary:
        """The run's summary: iperf3's own figures when it printed them, else the intervals'.

        ``reason`` says what the output's form cannot carry (then ``complete`` is False): a
        receiving server's retransmits, a sending server's receiver figures, the receiver
        throughput of a client's UDP summary before 3.2, a lost count printed as "Unknown".
        """
        values: dict[str, float] = {}
        recv = self._summary_of("sum", "receiver")
        send = self._summary_of("sum", "sender")
        if send is not None and send[0] == 0.0 and recv is not None and recv[0] > 0.0:
            send = None  # iperf3 3.1's server: "0.00 Bytes 0.00 bits/sec sender", not known
        complete = False
        reason: str | None = None
        if recv is not None:
            complete = True
            values[_THR] = recv[0]
            if recv[2] is not None:
                reason = self._udp_figures(values, recv)
                complete = reason is None
            elif self._server and (send is None or send[1] is None):
                complete, reason = False, REASON_SERVER_TCP
        elif send is not None and self._server:
            # A sending server (client used -R) prints only its own "sender" summary line.
            complete = True
            values[_THR] = send[0]
            if self._udp:
                complete, reason = False, REASON_SERVER_UDP_SENDER
        elif send is not None and self._sideless and send[2] is not None:
            self._udp_figures(values, send)
            reason = REASON_OLD_UDP_CLIENT
        else:
            self._from_intervals(values, "sum", _THR)
        if send is not None:
            values["sender_throughput_bps"] = send[0]
            if send[1] is not None:
                values[_RETR] = send[1]
        rrecv = self._summary_of("sum-reverse", "receiver")
        rsend = self._summary_of("sum-reverse", "sender")
        if rrecv is not None:
            values["throughput_reverse_bps"] = rrecv[0]
        elif rsend is not None and self._server:
            values["throughput_reverse_bps"] = rsend[0]
        elif "sum-reverse" in self._accs:
            acc = self._accs["sum-reverse"]
            if acc.dur > 0.0:
                values["throughput_reverse_bps"] = acc.weighted / acc.dur
        return Summary(
            values=values, complete=complete, error=self._error, form=self.form, reason=reason
        )

    def _udp_figures(self, values: dict[str, float], line: _SummaryLine) -> str | None:
        """A UDP summary line's jitter and loss into ``values``; a reason if a figure is not."""
        _, _, jitter, lost, total, pct = line
        values[_JIT] = jitter if jitter is not None else 0.0
        values[_PKTS] = total if total is not None else 0.0
        if lost is None:
            return REASON_LOST_UNKNOWN
        values[_LOST] = lost
        values[_LOSTPCT] = pct if pct is not None else 0.0
        if line[0] == 0.0 and values[_PKTS] > lost and _THR in values:
            # Datagrams arrived, yet "0.00 Bytes 0.00 bits/sec": iperf3 3.1's server.
            acc = self._accs.get("sum")
            if acc is not None and acc.dur > 0.0:
                values[_THR] = acc.weighted / acc.dur
            else:
                del values[_THR]
            return REASON_ZERO_UDP_SUMMARY
        return None

    def _from_intervals(self, values: dict[str, float], key: str, metric: str) -> None:
        acc = self._accs.get(key)
        if acc is not None:
            acc.fold_into(values, metric)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf3 text output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf3TextParser(), text)


def server_streams(records: list[Record]) -> list[Record]:
    """The server's records (--get-server-output) as streams of their own: "server-5", ..."""
    return [_new_record(Record, (SERVER_PREFIX + r[0], r[1], r[2], r[3])) for r in records]


def _percent(text: str, total: float, line: str) -> float:
    """A loss percentage; iperf 3.0's "0/0 (-nan%)" (no datagram in the interval) is 0 %."""
    value = float(text)
    if value != value:  # NaN
        if total == 0.0:
            return 0.0
        raise ValueError(line)
    return value
