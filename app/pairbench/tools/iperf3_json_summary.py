"""iperf3's JSON output summed up: the figures of its ``end``, judged, else its intervals'.

The summary follows the text parser's rules, from ``end``: ``throughput_bps`` is
``sum_received`` (the receiver's figure; complete); ``sender_throughput_bps`` and
``retransmits`` come from ``sum_sent``; UDP adds ``jitter_ms``, ``lost_packets``,
``packets``, ``lost_percent`` from ``sum_received`` (``end.sum`` when it lacks them, as
before 3.8; ``end.sum`` has the same jitter and loss but the sender's datagram count, while
the text's "Lost/Total" and ``sum_received`` give the receiver's); --bidir adds
``throughput_reverse_bps`` from ``sum_received_bidir_reverse``. A figure of 0 is taken for
"not known" after an interrupt (``"error": "interrupt - ..."``: the peer's figures never
came) and on the server, which then gives its own ``sum_sent`` figure; after "the client
has terminated" (server) no figure is trusted. Without a usable receiver figure the
summary is incomplete and derived from the intervals. ``error`` is iperf3's ``error`` (an
error event, or an ``iperf3: error - ...`` line); iperf3 3.12 exits 0 with ``-J`` even
when it could not connect. A new document or start event begins a new test (a server
prints one document per test): the summary is about the last one.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Final

from pairbench.domain import Summary
from pairbench.tools.base import ParseError, preview
from pairbench.tools.iperf3_json_entries import Skip, num
from pairbench.tools.iperf3_metrics import (
    JITTER,
    LOST,
    LOST_PERCENT,
    PACKETS,
    REASON_OLD_UDP_JSON,
    RETRANSMITS,
    SENDER_THROUGHPUT,
    THROUGHPUT,
    THROUGHPUT_REVERSE,
    IntervalTotals,
)

# The summary figures read from ``end`` (every one optional).
_END_KEYS: Final = (
    "sum_received",
    "sum_sent",
    "sum",
    "sum_received_bidir_reverse",
    "sum_sent_bidir_reverse",
)
_END_FIELDS: Final = (
    "bits_per_second",
    "retransmits",
    "jitter_ms",
    "lost_packets",
    "packets",
    "lost_percent",
)


@dataclass(frozen=True, slots=True)
class EndSeen:
    """What a parser saw that its summary reads: ``end``'s figures (``end_figures``), the
    aggregates' interval totals, and the output's kind and end."""

    end: dict[str, dict[str, float]]
    accs: dict[str, IntervalTotals]
    server: bool
    interrupted: bool  # "error": "interrupt - ..."
    peer_terminated: bool  # "the client has terminated" / "the server has terminated"


def end_figures(end: object) -> dict[str, dict[str, float]]:
    """The summary figures of ``end``: key -> {field: value} for the fields present."""
    if type(end) is not dict:
        raise ParseError(f"iperf3 JSON: 'end' is not an object: {preview(end)!r}")
    out: dict[str, dict[str, float]] = {}
    for key in _END_KEYS:
        part = end.get(key)
        if part is None:
            continue
        if type(part) is not dict:
            raise ParseError(f"iperf3 JSON: end.{key} is not an object: {preview(part)!r}")
        figures: dict[str, float] = {}
        for field in _END_FIELDS:
            if field in part:
                with contextlib.suppress(Skip):
                    figures[field] = num(part[field])
        out[key] = figures
    return out


def _figure(seen: EndSeen, key: str) -> dict[str, float] | None:
    """A usable summary part of ``end`` (with a rate), or None (absent or known bogus)."""
    part = seen.end.get(key)
    if part is None or "bits_per_second" not in part or seen.peer_terminated:
        # "the client has terminated" (server) or "the server has terminated" (client: its
        # server was stopped first) follows figures computed over the wrong span, and the
        # client's sum_received is then 0: figures never sent to it.
        return None
    if part["bits_per_second"] == 0.0 and (
        seen.interrupted or seen.server or _unreported(seen, key, part)
    ):
        # After an interrupt the figures that never came back from the peer are 0; the
        # server cannot know the client's side either.
        return None
    return part


def _unreported(seen: EndSeen, key: str, part: dict[str, float]) -> bool:
    """A received figure of zero beside a sent figure that is not: the receiver's figures
    never came (however the run ended). UDP with datagrams counted (all lost) is a real
    zero."""
    if not key.startswith("sum_received"):
        return False
    udp = part if "lost_packets" in part else seen.end.get("sum") or {}
    if part.get("packets", 0.0) > 0.0 or udp.get("lost_packets", 0.0) > 0.0:
        return False
    sent = seen.end.get(key.replace("sum_received", "sum_sent"))
    return sent is not None and sent.get("bits_per_second", 0.0) > 0.0


def json_summary(seen: EndSeen, *, error: str | None, form: str) -> Summary:
    """The run's summary: iperf3's own figures when it gave them, else the intervals'."""
    values: dict[str, float] = {}
    recv = _figure(seen, "sum_received")
    send = _figure(seen, "sum_sent")
    complete = False
    reason: str | None = None
    if recv is not None:
        complete = True
        values[THROUGHPUT] = recv["bits_per_second"]
        udp = recv if "jitter_ms" in recv else seen.end.get("sum")
        if udp is not None and "jitter_ms" in udp:
            values[JITTER] = udp["jitter_ms"]
            values[LOST] = udp.get("lost_packets", 0.0)
            values[PACKETS] = udp.get("packets", 0.0)
            values[LOST_PERCENT] = udp.get("lost_percent", 0.0)
    elif send is not None and seen.server:
        complete = True  # a sending server (client used -R): its own figure
        values[THROUGHPUT] = send["bits_per_second"]
    elif _old_udp_client(seen, values):
        reason = REASON_OLD_UDP_JSON
    else:
        acc = seen.accs.get("sum")
        if acc is not None:
            acc.fold_into(values)
    if send is not None:
        values[SENDER_THROUGHPUT] = send["bits_per_second"]
        if "retransmits" in send:
            values[RETRANSMITS] = send["retransmits"]
    rrecv = _figure(seen, "sum_received_bidir_reverse")
    rsend = _figure(seen, "sum_sent_bidir_reverse")
    if rrecv is not None:
        values[THROUGHPUT_REVERSE] = rrecv["bits_per_second"]
    elif rsend is not None and seen.server:
        values[THROUGHPUT_REVERSE] = rsend["bits_per_second"]
    else:
        acc = seen.accs.get("sum-reverse")
        if acc is not None and acc.dur > 0.0:
            values[THROUGHPUT_REVERSE] = acc.weighted / acc.dur
    return Summary(values=values, complete=complete, error=error, form=form, reason=reason)


def _old_udp_client(seen: EndSeen, values: dict[str, float]) -> bool:
    """A UDP client's ``end.sum`` before 3.8 (no ``sum_received``): the sender's rate and
    the receiver's jitter and loss into ``values``; False if the end is not that."""
    part = seen.end.get("sum")
    if seen.server or part is None or "jitter_ms" not in part or "bits_per_second" not in part:
        return False
    if "sum_received" in seen.end or seen.peer_terminated or seen.interrupted:
        return False
    values[SENDER_THROUGHPUT] = part["bits_per_second"]
    values[JITTER] = part["jitter_ms"]
    values[LOST] = part.get("lost_packets", 0.0)
    values[PACKETS] = part.get("packets", 0.0)
    values[LOST_PERCENT] = part.get("lost_percent", 0.0)
    return True
