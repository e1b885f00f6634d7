"""iperf3's JSON interval entries as records: a stream's or a sum's figures, and the directions."""

from __future__ import annotations

from typing import Final

from pairbench.domain import Record
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError, preview
from pairbench.tools.iperf3_metrics import TCP_RECV, TCP_SEND, TCP_SUM_SEND, UDP_RECV, UDP_SEND

# Aggregates of an interval: JSON key -> stream name. "sum" is the forward direction (client to
# server data) on both sides: iperf3 fills it first (TX-C on the client, RX-S on the server),
# and "sum_bidir_reverse" (--bidir only) holds the other direction, as the text parser's
# "sum" / "sum-reverse".
_AGGREGATES: Final = (("sum", "sum"), ("sum_bidir_reverse", "sum-reverse"))


# Stream names for socket numbers ("5", "7", ...), made once.
_SOCKET_NAMES: Final[dict[int, str]] = {}


class Skip(Exception):
    """An interval entry without a usable figure (JSON ``null``, iperf3's NaN): no record."""


# iperf3's counters are 64-bit; a figure beyond ±2^64 (or not finite) is not iperf3's, and
# keeping to this range keeps every sum and product of figures finite.
_MAX_NUMBER: Final = float(2**64)
_MAX_INT: Final = 2**64


def num(value: object) -> float:
    """A JSON number as a float; ``null`` skips the entry; anything else is not iperf3's."""
    if type(value) is float:
        if -_MAX_NUMBER <= value <= _MAX_NUMBER:  # so finite (cJSON prints NaN as null)
            return value
        raise ParseError(f"iperf3 JSON: a finite number was expected, not {value!r}")
    if type(value) is int:
        if -_MAX_INT <= value <= _MAX_INT:
            return float(value)
        raise ParseError(f"iperf3 JSON: number out of range: {preview(value, 80)!r}")
    if value is None:
        raise Skip
    raise ParseError(f"iperf3 JSON: a number was expected, not {preview(value, 80)!r}")


def socket_name(entry: dict[str, object]) -> str:
    sock = entry.get("socket")
    if type(sock) is not int:
        raise ParseError(f"iperf3 JSON: stream without a socket number: {preview(entry)!r}")
    name = _SOCKET_NAMES.get(sock)
    if name is None:
        name = str(sock)
        if len(_SOCKET_NAMES) < 4096:
            _SOCKET_NAMES[sock] = name
    return name


def interval_entry(entry: object, key: str) -> tuple[Record, float] | None:
    """The record of one interval entry (a stream or a sum) and its interval length, or None.

    None for an ``omitted`` entry (``-O``), a zero-length one (see ``Iperf3JsonParser``) and
    one whose figures are ``null``. The metrics tuple is chosen by the keys present, as the
    text parser chooses by the columns printed.
    """
    if type(entry) is not dict:
        raise ParseError(f"iperf3 JSON: an interval entry is not an object: {preview(entry)!r}")
    try:
        if entry.get("omitted") is True:
            return None
        start = num(entry["start"])
        t = num(entry["end"])
        if t - start < 0.01 and f"{start:.2f}" == f"{t:.2f}":
            return None  # what the text shows as "5.00-5.00": no record there either
        rate = num(entry["bits_per_second"])
        metrics: tuple[str, ...]
        values: tuple[float, ...]
        if "jitter_ms" in entry:
            metrics = UDP_RECV
            values = (
                rate,
                num(entry["jitter_ms"]),
                num(entry["lost_packets"]),
                num(entry["packets"]),
                num(entry["lost_percent"]),
            )
        elif "packets" in entry:
            metrics, values = UDP_SEND, (rate, num(entry["packets"]))
        elif "retransmits" in entry:
            if "snd_cwnd" in entry:
                metrics = TCP_SEND
                values = (rate, num(entry["retransmits"]), num(entry["snd_cwnd"]))
            else:
                metrics, values = TCP_SUM_SEND, (rate, num(entry["retransmits"]))
        else:
            metrics, values = TCP_RECV, (rate,)
    except Skip:
        return None
    except KeyError as exc:
        raise ParseError(
            f"iperf3 JSON: interval entry without {exc.args[0]!r}: {preview(entry)!r}"
        ) from None
    return new_record(Record, (key, t, metrics, values)), t - start


def directions(
    interval: dict[str, object],
    streams: list[object],
    found: list[tuple[Record, float, bool]],
) -> bool:
    """Fill ``found`` for several streams or --bidir; True when an entry was omitted."""
    omitted = False
    entries: list[tuple[object, tuple[Record, float] | None]] = []
    for entry in streams:
        if type(entry) is not dict:
            raise ParseError(f"iperf3 JSON: a stream is not an object: {preview(entry)!r}")
        got = interval_entry(entry, socket_name(entry))
        omitted = omitted or entry.get("omitted") is True
        entries.append((entry.get("sender"), got))
    bidir = "sum_bidir_reverse" in interval
    used = [False] * len(entries)
    for json_key, name in _AGGREGATES:
        total = interval.get(json_key)
        if total is None:
            continue
        if type(total) is not dict:
            raise ParseError(f"iperf3 JSON: {json_key!r} is not an object")
        sender = total.get("sender")
        members = [
            i
            for i, (flag, _) in enumerate(entries)
            if not used[i] and (not bidir or flag is sender)
        ]
        for i in members:
            used[i] = True
            got = entries[i][1]
            if got is not None:
                found.append((got[0], got[1], False))
        if len(members) == 1:  # one stream in this direction: its copy (text: no [SUM])
            got = entries[members[0]][1]
            if got is not None:
                found.append((new_record(Record, (name, *got[0][1:])), got[1], True))
            continue
        omitted = omitted or total.get("omitted") is True
        got = interval_entry(total, name)
        if got is not None:
            found.append((got[0], got[1], True))
    for i, (_, got) in enumerate(entries):  # streams of no aggregate (not iperf3's output)
        if not used[i] and got is not None:
            found.append((got[0], got[1], False))
    return omitted
