"""Incremental parser for iperf3 3.12 text output, client and server side (DESIGN §3, §4)."""

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
from pairbench.tools.iperf3_metrics import TCP_RECV as _TCP_RECV
from pairbench.tools.iperf3_metrics import TCP_SEND as _TCP_SEND
from pairbench.tools.iperf3_metrics import TCP_SUM_SEND as _TCP_SUM_SEND
from pairbench.tools.iperf3_metrics import THROUGHPUT as _THR
from pairbench.tools.iperf3_metrics import UDP_RECV as _UDP_RECV
from pairbench.tools.iperf3_metrics import UDP_SEND as _UDP_SEND
from pairbench.tools.iperf3_metrics import IntervalTotals

__all__ = ["Iperf3TextParser", "parse_text_output"]

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
    r"|([\d.]{1,32}+)\sms\s++(\d{1,32}+)/(\d{1,32}+)\s++"  # 10 jitter, 11-12 lost/total (UDP)
    r"\(([-+]?(?:[\d.]{1,32}+(?:e[-+]?\d{1,2}+)?|nan|inf))%\)"  # 13 loss % (printed with %.2g)
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

# Rates: bits are 1000-based; the exponent is appended to the printed digits so that the float
# is the correctly rounded value of what iperf3 printed ("14.2 Gbits/sec" == 14.2e9 exactly).
_BIT_EXP: Final[dict[str, str]] = {
    "bits": "",
    "Kbits": "e3",
    "Mbits": "e6",
    "Gbits": "e9",
    "Tbits": "e12",
}
# Bytes are 1024-based (powers of two: multiplying is exact).
_BYTES: Final[dict[str, float]] = {
    "Bytes": 1.0,
    "KBytes": 1024.0,
    "MBytes": 1024.0**2,
    "GBytes": 1024.0**3,
    "TBytes": 1024.0**4,
}
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
# "Connecting to host", "Server listening"); every other line is skipped at once.
_CHATTER_FIRST: Final = frozenset("iACS")

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
    """Parser for the text output of iperf3 3.12 (``iperf3 -c ...`` or ``iperf3 -s ...``).

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
        "_interrupted",
        "_last_t",
        "_nconn",
        "_omitted",
        "_peer_terminated",
        "_quantities",
        "_saw_sum",
        "_server",
        "_summ",
        "_udp",
    )

    def __init__(self) -> None:
        self._omitted = 0
        self._server = False
        self._quantities: dict[str, float] = {}  # see _quantity
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

    @property
    def omitted_intervals(self) -> int:
        """How many ``(omitted)`` interval lines (iperf3 ``-O``) were seen and skipped."""
        return self._omitted

    @property
    def is_server(self) -> bool:
        """True once the output is recognised as the server's (banner or accepted connection)."""
        return self._server

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (may be empty)."""
        # The fast path: TCP sender interval lines (per stream with retransmits and cwnd, or
        # [SUM] with retransmits) and UDP sender lines, about all of a long run's output. It
        # accepts only lines that the general path would read the same way (see _FAST_RE),
        # and changes no state until every number converted; anything else, including a
        # malformed number (the ParseError and its rollback), is left to _feed_general.
        m = _FAST_MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            sid, start_s, end_s, rate_s, n_s, cwnd_s = m.groups()
            if start_s != end_s:  # else zero-length: see _feed_general
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
        value = float(number + exp) if exp is not None else float(number) * _BYTES[unit]
        known = self._quantities
        if len(known) >= _MAX_KNOWN:
            known.clear()
        known[text] = value
        return value

    def _feed_general(self, line: str) -> list[Record]:
        """Any line: chatter, headers, summaries and every kind of interval line."""
        first = line[:1]
        if first != "[":
            if first in _CHATTER_FIRST:
                self._other_line(line)
            return []
        if len(line) > MAX_LINE:
            raise ParseError(f"iperf3: line of {len(line)} characters: {line[:200]!r}")
        m = _MATCH(line)
        if m is None:
            self._unmatched_bracket_line(line)
            return []
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
        if side is not None or omitted is not None or start_s == end_s:
            # A summary line; an (omitted) one (-O); or zero-length, e.g. the server's last
            # "5.00-5.00" (a few ms of data that the summary already holds): no records.
            self._rare_line(line, groups)
            return []
        saw_sum = self._saw_sum
        key_set: str | None = None  # the entry of _last_t this line set, for a rollback
        last: float | None = None
        try:
            t = float(end_s)
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
            exp = _BIT_EXP.get(rate_u)
            rate = float(rate_s + exp) if exp is not None else float(rate_s) * _BYTES[rate_u] * 8
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
                metrics = _UDP_RECV
                jitter, lost_n, total_n = float(jit), float(lost), float(total)
                values = (rate, jitter, lost_n, total_n, float(pct))
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

    def _rare_line(self, line: str, groups: tuple[str | Any, ...]) -> None:
        if groups[15] is not None:
            try:
                self._summary_line(groups)
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

    def _unmatched_bracket_line(self, line: str) -> None:
        if _PREFIX_RE.match(line) is not None:
            raise ParseError(f"iperf3: malformed interval line: {line[:200]!r}")
        if " connected to " in line and _CONNECTED_RE.match(line) is not None:
            self._nconn += 1
        elif "Datagrams" in line:  # "[ ID] Interval ... Total Datagrams" / "Lost/Total Datagrams"
            self._udp = True
        # Anything else in brackets (column headers, -V extras) is chatter.

    def _other_line(self, line: str) -> None:
        if len(line) > MAX_LINE:
            return
        if line.startswith("iperf3: "):
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
        # Everything else (separators, banners, warnings, "iperf Done.", usage text) is chatter.

    def _summary_line(self, groups: tuple[str | Any, ...]) -> None:
        sid, role, _, _, rate_s, rate_u, retr, _, _, jit, lost, total, pct, single, _, side = groups
        if sid != "SUM" and (self._saw_sum or self._nconn > (1 if role is None else 2)):
            return  # a per-stream summary line of a multi-stream test: [SUM] has the totals
        retr_v: float | None = None
        if retr is not None:
            retr_v = float(retr)
        elif single is not None and not self._udp:
            retr_v = float(single)
        exp = _BIT_EXP.get(rate_u)
        rate = float(rate_s + exp) if exp is not None else float(rate_s) * _BYTES[rate_u] * 8.0
        self._summ[(_SUM_KEY[role], side)] = (
            rate,
            retr_v,
            None if jit is None else float(jit),
            None if lost is None else float(lost),
            None if total is None else float(total),
            None if pct is None else float(pct),
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
        """The run's summary: iperf3's own figures when it printed them, else the intervals'."""
        values: dict[str, float] = {}
        recv = self._summary_of("sum", "receiver")
        send = self._summary_of("sum", "sender")
        complete = False
        if recv is not None:
            complete = True
            values[_THR] = recv[0]
            if recv[2] is not None:
                values[_JIT] = recv[2]
                values[_LOST] = recv[3] if recv[3] is not None else 0.0
                values[_PKTS] = recv[4] if recv[4] is not None else 0.0
                values[_LOSTPCT] = recv[5] if recv[5] is not None else 0.0
        elif send is not None and self._server:
            # A sending server (client used -R) prints only its own "sender" summary line.
            complete = True
            values[_THR] = send[0]
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
        return Summary(values=values, complete=complete, error=self._error)

    def _from_intervals(self, values: dict[str, float], key: str, metric: str) -> None:
        acc = self._accs.get(key)
        if acc is not None:
            acc.fold_into(values, metric)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf3 text output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf3TextParser(), text)
