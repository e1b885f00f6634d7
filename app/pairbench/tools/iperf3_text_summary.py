"""iperf3's text output summed up: the summary lines it printed, judged, else its intervals'.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pairbench.domain import Summary
from pairbench.tools.iperf3_metrics import JITTER as _JIT
from pairbench.tools.iperf3_metrics import LOST as _LOST
from pairbench.tools.iperf3_metrics import LOST_PERCENT as _LOSTPCT
from pairbench.tools.iperf3_metrics import PACKETS as _PKTS
from pairbench.tools.iperf3_metrics import RETRANSMITS as _RETR
from pairbench.tools.iperf3_metrics import THROUGHPUT as _THR
from pairbench.tools.iperf3_metrics import IntervalTotals
from pairbench.tools.iperf3_text_grammar import percent

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


# A parsed summary line: rate, retransmits, jitter, lost, total, lost %.
SummaryLine = tuple[float, float | None, float | None, float | None, float | None, float | None]


@dataclass(frozen=True, slots=True)
class SummarySeen:
    """What a parser saw that its summary reads: the summary lines by (aggregate, side), the
    aggregates' interval totals, and the output's kind and end."""

    lines: dict[tuple[str, str], SummaryLine]
    accs: dict[str, IntervalTotals]
    server: bool  # the server's output
    udp: bool
    sideless: bool  # a UDP summary line without "sender"/"receiver" (client, < 3.2)
    interrupted: bool  # the client's "iperf3: interrupt - ..."
    peer_terminated: bool  # "the client has terminated" / "the server has terminated"


def _summary_of(seen: SummarySeen, key: str, side: str) -> SummaryLine | None:
    """A usable summary line of an aggregate, or None (absent or known to be bogus)."""
    line = seen.lines.get((key, side))
    if line is None or seen.peer_terminated:
        # "the client has terminated" (server) or "error - the server has terminated"
        # (client: its server was stopped first) follows a summary computed over the wrong
        # duration (iperf3 3.12 divides all the bytes by the last full interval's end), and
        # the client's receiver line is then "0.00 bits/sec": figures never sent to it.
        return None
    if line[0] == 0.0 and (seen.interrupted or _unreported(seen, key, side, line)):
        # Client: after "iperf3: interrupt - the client has terminated" iperf3 prints the
        # side whose figures never came back from the server as "0.00 bits/sec".
        return None
    return line


def _unreported(seen: SummarySeen, key: str, side: str, line: SummaryLine) -> bool:
    """A receiver line of zero beside a sender line that sent something: the receiver's
    figures never came (however the run ended; its stderr message may be missing). UDP
    with datagrams counted (all lost) is a real zero."""
    if side != "receiver" or (line[3] or 0.0) > 0.0 or (line[4] or 0.0) > 0.0:
        return False
    sender = seen.lines.get((key, "sender"))
    return sender is not None and sender[0] > 0.0


def text_summary(seen: SummarySeen, *, error: str | None, form: str) -> Summary:
    """The run's summary: iperf3's own figures when it printed them, else the intervals'
    (``Iperf3TextParser.close`` says which and why)."""
    values: dict[str, float] = {}
    recv = _summary_of(seen, "sum", "receiver")
    send = _summary_of(seen, "sum", "sender")
    if send is not None and send[0] == 0.0 and recv is not None and recv[0] > 0.0:
        send = None  # iperf3 3.1's server: "0.00 Bytes 0.00 bits/sec sender", not known
    complete = False
    reason: str | None = None
    if recv is not None:
        complete = True
        values[_THR] = recv[0]
        if recv[2] is not None:
            reason = _udp_figures(seen, values, recv)
            complete = reason is None
        elif seen.server and (send is None or send[1] is None):
            complete, reason = False, REASON_SERVER_TCP
    elif send is not None and seen.server:
        # A sending server (client used -R) prints only its own "sender" summary line.
        complete = True
        values[_THR] = send[0]
        if seen.udp:
            complete, reason = False, REASON_SERVER_UDP_SENDER
    elif send is not None and seen.sideless and send[2] is not None:
        _udp_figures(seen, values, send)
        reason = REASON_OLD_UDP_CLIENT
    else:
        acc = seen.accs.get("sum")
        if acc is not None:
            acc.fold_into(values, _THR)
    if send is not None:
        values["sender_throughput_bps"] = send[0]
        if send[1] is not None:
            values[_RETR] = send[1]
    rrecv = _summary_of(seen, "sum-reverse", "receiver")
    rsend = _summary_of(seen, "sum-reverse", "sender")
    if rrecv is not None:
        values["throughput_reverse_bps"] = rrecv[0]
    elif rsend is not None and seen.server:
        values["throughput_reverse_bps"] = rsend[0]
    elif "sum-reverse" in seen.accs:
        acc = seen.accs["sum-reverse"]
        if acc.dur > 0.0:
            values["throughput_reverse_bps"] = acc.weighted / acc.dur
    return Summary(values=values, complete=complete, error=error, form=form, reason=reason)


def _udp_figures(seen: SummarySeen, values: dict[str, float], line: SummaryLine) -> str | None:
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
        acc = seen.accs.get("sum")
        if acc is not None and acc.dur > 0.0:
            values[_THR] = acc.weighted / acc.dur
        else:
            del values[_THR]
        return REASON_ZERO_UDP_SUMMARY
    return None


def summary_figures(
    groups: tuple[str | Any, ...], rate: float, line: str, *, udp: bool
) -> SummaryLine:
    """A summary line's figures from its match groups (``INTERVAL_RE``'s) and its rate."""
    retr, jit, lost, total, pct, single = groups[6], *groups[9:14]
    retr_v: float | None = None
    if retr is not None:
        retr_v = float(retr)
    elif single is not None and not udp:
        retr_v = float(single)
    if jit is not None and pct is None and lost != "Unknown":
        raise ValueError(line)  # a count of lost datagrams goes with its percentage
    return (
        rate,
        retr_v,
        None if jit is None else float(jit),
        None if lost is None or lost == "Unknown" else float(lost),
        None if total is None else float(total),
        None if pct is None else percent(pct, float(total or 0), line),
    )
