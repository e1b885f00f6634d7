"""Incremental parser for iperf3's text output (3.0 to 3.21), client and server, every form."""

from __future__ import annotations

from typing import Any

from pairbench.domain import Record, Summary
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.iperf3_metrics import TCP_RECV as _TCP_RECV
from pairbench.tools.iperf3_metrics import TCP_SEND as _TCP_SEND
from pairbench.tools.iperf3_metrics import TCP_SUM_SEND as _TCP_SUM_SEND
from pairbench.tools.iperf3_metrics import UDP_RECV as _UDP_RECV
from pairbench.tools.iperf3_metrics import UDP_SEND as _UDP_SEND

# The metric names and the metrics tuple of each kind of interval line (shared with the JSON
# parser: every Record of a kind shares one tuple, which the recorder keys its buffers on).
from pairbench.tools.iperf3_metrics import IntervalTotals, RunEnd, running_totals, server_streams
from pairbench.tools.iperf3_text_forms import BYTES as _BYTES
from pairbench.tools.iperf3_text_forms import (
    UnitForm,
    body_offset,
    form_name,
    printed_rate,
    read_quantity,
)
from pairbench.tools.iperf3_text_grammar import (
    CHATTER_FIRST,
    CONNECTED_RE,
    FAST_MATCH,
    INTERVAL_MATCH,
    MAX_LINE,
    PREFIX_RE,
    SUM_KEY,
    percent,
)
from pairbench.tools.iperf3_text_summary import (
    SummaryLine,
    SummarySeen,
    summary_figures,
    text_summary,
)

__all__ = ["Iperf3TextParser", "parse_text_output"]


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

    Summary: ``tools.iperf3_text_summary.text_summary`` (iperf3's summary lines, judged).

    A server log holding several tests starts afresh at each ``Accepted connection`` line;
    the summary is then the last test's.
    """

    __slots__ = (
        "_accs",
        "_in_summary",
        "_last_t",
        "_nconn",
        "_nested",
        "_omitted",
        "_quantities",
        "_said",
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
        self._quantities: dict[str, float] = {}  # see read_quantity
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
        self._said = RunEnd()  # its messages: an error, an interrupt, a peer that ended
        self._last_t: dict[str, float] = {}
        self._accs: dict[str, IntervalTotals] = {}
        self._summ: dict[tuple[str, str], SummaryLine] = {}
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
        # accepts only lines that the general path would read the same way (see FAST_RE),
        # and changes no state until every number converted; anything else, including a
        # malformed number (the ParseError and its rollback), is left to _feed_general.
        m = FAST_MATCH(line)
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
                        rate = read_quantity(rate_s, known, self._units)
                    n = float(n_s)
                    if cwnd_s is not None:
                        known_cwnd = known.get(cwnd_s)
                        cwnd = (
                            read_quantity(cwnd_s, known, self._units)
                            if known_cwnd is None
                            else known_cwnd
                        )
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
                    record = new_record(Record, (key, t, metrics, values))
                    if agg is None:
                        return [record]
                    acc = running_totals(self._accs, agg, dur, rate)
                    if metrics is _UDP_SEND:
                        acc.pkts = (acc.pkts or 0.0) + n
                    else:
                        acc.retr = (acc.retr or 0.0) + n
                    if agg == key:
                        return [record]
                    last_t[agg] = t
                    return [record, new_record(Record, (agg, t, metrics, values))]
        return self._feed_general(line)

    def _feed_general(self, line: str, stamped: bool = False) -> list[Record]:
        """Any line: chatter, headers, summaries and every kind of interval line.

        ``stamped``: ``line`` is what followed a time stamp (no second one is looked for).
        """
        first = line[:1]
        if first != "[":
            if first in CHATTER_FIRST and self._other_line(line):
                return []
            return self._after_stamp(line, stamped)
        if len(line) > MAX_LINE:
            raise ParseError(f"iperf3: line of {len(line)} characters: {line[:200]!r}")
        m = INTERVAL_MATCH(line)
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
            rate = printed_rate(
                rate_s, rate_u, line, start_s, end_s, self._units
            )  # (before any return)
            if sid == "SUM":
                key = SUM_KEY[role]
                self._saw_sum = True
                agg: str | None = key
            else:
                key = sid
                if self._saw_sum or self._nconn > (1 if role is None else 2):
                    agg = None
                else:
                    agg = SUM_KEY[role]  # one stream per direction, no [SUM] lines: copy
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
                values = (rate, jitter, lost_n, total_n, percent(pct, total_n, line))
            else:  # TCP receiver
                metrics = _TCP_RECV
                values = (rate,)
            record = new_record(Record, (key, t, metrics, values))
            if agg is None:
                return [record]
            acc = running_totals(self._accs, agg, t - float(start_s), rate)
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
            return [record, new_record(Record, (agg, t, metrics, values))]
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

    def _unmatched_bracket_line(self, line: str) -> bool:
        """A bracketed line that is no interval or summary line; False: none of iperf3's."""
        if PREFIX_RE.match(line) is not None:
            if line.endswith(" datagrams received out-of-order"):
                return True  # "[  5]  0.0- 3.0 sec  2 datagrams received out-of-order"
            raise ParseError(f"iperf3: malformed interval line: {line[:200]!r}")
        if " connected to " in line and CONNECTED_RE.match(line) is not None:
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
        """A line that begins with a letter of ``CHATTER_FIRST``; False: none of iperf3's."""
        if len(line) > MAX_LINE:
            return True
        if line.startswith("- - - "):
            self._saw_sep = True
        elif line.startswith("iperf3: "):
            self._said.note_line(line)
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
        sid, role, start_s, end_s, rate_s, rate_u = groups[:6]
        side = groups[15]
        if sid != "SUM" and (self._saw_sum or self._nconn > (1 if role is None else 2)):
            return  # a per-stream summary line of a multi-stream test: [SUM] has the totals
        if side is None:  # a UDP summary before 3.2: the server's is the receiver's figures;
            side = "receiver" if self._server else "sender"  # the client's rate is sent data
            self._sideless = not self._server
        rate = printed_rate(rate_s, rate_u, line, start_s, end_s, self._units)
        self._summ[(SUM_KEY[role], side)] = summary_figures(groups, rate, line, udp=self._udp)

    def close(self) -> Summary:
        """The run's summary: iperf3's own figures when it printed them, else the intervals'.

        ``reason`` says what the output's form cannot carry (then ``complete`` is False): a
        receiving server's retransmits, a sending server's receiver figures, the receiver
        throughput of a client's UDP summary before 3.2, a lost count printed as "Unknown".
        """
        seen = SummarySeen(
            lines=self._summ,
            accs=self._accs,
            server=self._server,
            udp=self._udp,
            sideless=self._sideless,
            interrupted=self._said.interrupted,
            peer_terminated=self._said.peer_terminated,
        )
        return text_summary(seen, error=self._said.error, form=self.form)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf3 text output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf3TextParser(), text)
