"""The metric names and per-kind metric tuples that both iperf3 parsers (text and JSON) give."""

from __future__ import annotations

from typing import Final

__all__ = [
    "CWND",
    "JITTER",
    "LOST",
    "LOST_PERCENT",
    "PACKETS",
    "RETRANSMITS",
    "SENDER_THROUGHPUT",
    "TCP_RECV",
    "TCP_SEND",
    "TCP_SUM_SEND",
    "THROUGHPUT",
    "THROUGHPUT_REVERSE",
    "UDP_RECV",
    "UDP_SEND",
]

THROUGHPUT: Final = "throughput_bps"
RETRANSMITS: Final = "retransmits"
CWND: Final = "cwnd_bytes"
JITTER: Final = "jitter_ms"
LOST: Final = "lost_packets"
PACKETS: Final = "packets"
LOST_PERCENT: Final = "lost_percent"
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
