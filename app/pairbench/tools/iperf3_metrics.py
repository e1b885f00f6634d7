"""What both iperf3 parsers (text and JSON) share: metric names and tuples, totals, a run's end.

The metric names and per-kind metric tuples they give; the running totals of an aggregate
(``IntervalTotals``, ``running_totals``); how a run ended as iperf3 said it (``RunEnd``); the
server's records (--get-server-output) as streams of their own (``server_streams``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pairbench.domain.samples import Record, new_record

__all__ = [
    "CWND",
    "JITTER",
    "LOST",
    "LOST_PERCENT",
    "PACKETS",
    "REASON_OLD_UDP_JSON",
    "RETRANSMITS",
    "SENDER_THROUGHPUT",
    "SERVER_PREFIX",
    "TCP_RECV",
    "TCP_SEND",
    "TCP_SUM_SEND",
    "THROUGHPUT",
    "THROUGHPUT_REVERSE",
    "UDP_RECV",
    "UDP_SEND",
    "RunEnd",
]

THROUGHPUT: Final = "throughput_bps"
RETRANSMITS: Final = "retransmits"
CWND: Final = "cwnd_bytes"
JITTER: Final = "jitter_ms"
LOST: Final = "lost_packets"
PACKETS: Final = "packets"
LOST_PERCENT: Final = "lost_percent"
# The streams of the server's own output inside the client's (--get-server-output) are its
# ids with this before them: "server-5", "server-sum".
SERVER_PREFIX: Final = "server-"
# Why a JSON summary is incomplete although iperf3 ended normally (its form cannot carry it).
REASON_OLD_UDP_JSON: Final = (
    "a UDP client's JSON before iperf3 3.8 has no sum_received: no receiver throughput"
    " (end.sum gives the sender's rate and the receiver's jitter and loss)"
)
# Summary-only names.
SENDER_THROUGHPUT: Final = "sender_throughput_bps"
THROUGHPUT_REVERSE: Final = "throughput_reverse_bps"

# The metrics of each kind of interval line, one constant tuple each: every Record of a kind
# shares it (the recorder keys its buffers on it), whichever parser made the Record.
TCP_SEND: Final[tuple[str, ...]] = (THROUGHPUT, RETRANSMITS, CWND)  # TCP sender, per stream
TCP_SUM_SEND: Final[tuple[str, ...]] = (THROUGHPUT, RETRANSMITS)  # TCP sender, [SUM]
UDP_SEND: Final[tuple[str, ...]] = (THROUGHPUT, PACKETS)  # UDP sender
UDP_RECV: Final[tuple[str, ...]] = (THROUGHPUT, JITTER, LOST, PACKETS, LOST_PERCENT)  # receiver
TCP_RECV: Final[tuple[str, ...]] = (THROUGHPUT,)  # TCP receiver


class IntervalTotals:
    """Running totals of one aggregate direction's intervals, for incomplete summaries.

    Shared by the text and JSON parsers: when iperf3's own summary is missing (a killed or
    interrupted run), the summary comes from these.
    """

    __slots__ = ("dur", "jitter", "lost", "pkts", "retr", "rx_pkts", "weighted")

    def __init__(self) -> None:
        self.weighted = 0.0  # sum of rate * interval length
        self.dur = 0.0  # sum of interval lengths
        self.retr: float | None = None
        self.pkts: float | None = None  # UDP sender datagrams
        self.rx_pkts: float | None = None  # UDP receiver datagrams
        self.lost: float | None = None
        self.jitter: float | None = None

    def add(self, metrics: tuple[str, ...], values: tuple[float, ...], dur: float) -> None:
        """Add one interval's values (``metrics`` is one of the constant tuples above)."""
        if dur > 0.0:
            self.weighted += values[0] * dur
            self.dur += dur
        if metrics is UDP_SEND:
            self.pkts = (self.pkts or 0.0) + values[1]
        elif metrics is UDP_RECV:
            self.jitter = values[1]
            self.lost = (self.lost or 0.0) + values[2]
            self.rx_pkts = (self.rx_pkts or 0.0) + values[3]
        elif metrics is not TCP_RECV:
            self.retr = (self.retr or 0.0) + values[1]

    def fold_into(self, values: dict[str, float], throughput_key: str = THROUGHPUT) -> None:
        """Summary values derived from the intervals: mean rate, counters, last jitter."""
        if self.dur > 0.0:
            values[throughput_key] = self.weighted / self.dur
        if self.retr is not None:
            values[RETRANSMITS] = self.retr
        if self.rx_pkts is not None:
            lost = self.lost or 0.0
            values[LOST] = lost
            values[PACKETS] = self.rx_pkts
            values[LOST_PERCENT] = 100.0 * lost / self.rx_pkts if self.rx_pkts else 0.0
            if self.jitter is not None:
                values[JITTER] = self.jitter  # iperf3's final jitter is its last running estimate
        elif self.pkts is not None:
            values[PACKETS] = self.pkts


@dataclass(slots=True)
class RunEnd:
    """How a run ended as iperf3 said it (both parsers): its first message, an interrupt, a
    peer that terminated; the summaries trust fewer figures after the last two."""

    error: str | None = None
    interrupted: bool = False  # (client) "interrupt - ...": the peer's figures never came
    peer_terminated: bool = False  # "the client/server has terminated": a wrong duration

    def note(self, msg: str) -> None:
        """A message of iperf3's (an ``iperf3: ...`` line's, a JSON ``error``)."""
        if msg.startswith("interrupt - "):
            self.interrupted = True
        elif msg in ("the client has terminated", "the server has terminated"):
            self.peer_terminated = True
        if self.error is None:
            self.error = msg

    def note_line(self, line: str) -> None:
        """An ``iperf3: ...`` line (stderr, or a 3.12 option error): its message."""
        msg = line[8:].rstrip()
        if msg.startswith("error - "):
            msg = msg[8:]
        self.note(msg)


def running_totals(
    accs: dict[str, IntervalTotals], agg: str, dur: float, rate: float
) -> IntervalTotals:
    """The running totals of aggregate ``agg`` in ``accs`` (made when new), with an interval
    of ``dur`` seconds at ``rate`` added to its throughput."""
    acc = accs.get(agg)
    if acc is None:
        acc = accs[agg] = IntervalTotals()
    if dur > 0.0:
        acc.weighted += rate * dur
        acc.dur += dur
    return acc


def server_streams(records: list[Record]) -> list[Record]:
    """The server's records (--get-server-output) as streams of their own: "server-5", ..."""
    return [new_record(Record, (SERVER_PREFIX + r[0], r[1], r[2], r[3])) for r in records]
