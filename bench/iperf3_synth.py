"""Synthetic iperf3 3.12 text output of a long TCP client run, byte for byte in its format."""

from __future__ import annotations

import random
from dataclasses import dataclass

# iperf3 3.12 src/iperf_locale.c (TCP client, sender side)
_HEADER = "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd"
_SUMMARY_HEADER = "[ ID] Interval           Transfer     Bitrate         Retr"
_SEPARATOR = "- - - - - - - - - - - - - - - - - - - - - - - - -"
_BW_RETRANS_CWND = "[{:3d}] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec  {:3d}   {}s       "
_SUM_BW_RETRANS = "[SUM] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec  {:3d}             "
_BW_RETRANS = "[{:3d}] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec  {:3d}             sender"
_BW = "[{:3d}] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec                  receiver"
_SUM_BW_RETRANS_END = "[SUM] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec  {:3d}             sender"
_SUM_BW_END = "[SUM] {:6.2f}-{:<6.2f} sec  {}s  {}s/sec                  receiver"

_BYTE_LABELS = ("Byte", "KByte", "MByte", "GByte", "TByte")
_BIT_LABELS = ("bit", "Kbit", "Mbit", "Gbit", "Tbit")


def unit_text(value: float, *, bits: bool) -> str:
    """iperf3's ``unit_snprintf`` with format 'a' (bits, 1000-based) or 'A' (bytes, 1024)."""
    base = 1000.0 if bits else 1024.0
    labels = _BIT_LABELS if bits else _BYTE_LABELS
    num = value * 8.0 if bits else value
    conv = 0
    while num >= base and conv < len(labels) - 1:
        num /= base
        conv += 1
    if num < 9.995:
        text = f"{num:4.2f}"
    elif num < 99.95:
        text = f"{num:4.1f}"
    else:
        text = f"{num:4.0f}"
    return f"{text} {labels[conv]}"


@dataclass(frozen=True, slots=True)
class SynthRun:
    """The generated output and what a correct parser must make of it."""

    lines: list[str]
    intervals: int
    streams: int

    @property
    def expected_samples(self) -> int:
        """Per interval: throughput, retransmits and cwnd per stream; throughput and retr of SUM."""
        return self.intervals * (3 * self.streams + 2)


def tcp_client_output(intervals: int, streams: int = 4, seed: int = 1) -> SynthRun:
    """``iperf3 -c 10.200.0.1 -t <intervals> -i 1 --forceflush -P <streams>`` as 3.12 prints it."""
    rng = random.Random(seed)
    ids = [5 + 2 * i for i in range(streams)]
    lines = ["Connecting to host 10.200.0.1, port 5201"]
    lines += [
        f"[{sid:3d}] local 10.200.0.2 port {50448 + 16 * i} connected to 10.200.0.1 port 5201"
        for i, sid in enumerate(ids)
    ]
    lines.append(_HEADER)
    totals = [0.0] * streams
    retr_totals = [0] * streams
    for k in range(intervals):
        start, end = float(k), float(k + 1)
        sum_bytes = 0.0
        sum_retr = 0
        for i, sid in enumerate(ids):
            nbytes = rng.uniform(0.6e9, 1.4e9)  # bytes in this 1 s interval (~5-11 Gbit/s)
            retr = rng.choice((0, 0, 0, rng.randrange(1, 4000)))
            cwnd = rng.uniform(150e3, 3e6)
            totals[i] += nbytes
            retr_totals[i] += retr
            sum_bytes += nbytes
            sum_retr += retr
            lines.append(
                _BW_RETRANS_CWND.format(
                    sid,
                    start,
                    end,
                    unit_text(nbytes, bits=False),
                    unit_text(nbytes, bits=True),
                    retr,
                    unit_text(cwnd, bits=False),
                )
            )
        lines.append(
            _SUM_BW_RETRANS.format(
                start,
                end,
                unit_text(sum_bytes, bits=False),
                unit_text(sum_bytes, bits=True),
                sum_retr,
            )
        )
        lines.append(_SEPARATOR)
    duration = float(intervals)
    lines.append(_SUMMARY_HEADER)
    for i, sid in enumerate(ids):
        rate = totals[i] / duration
        byte_text = unit_text(totals[i], bits=False)
        rate_text = unit_text(rate, bits=True)
        lines.append(_BW_RETRANS.format(sid, 0.0, duration, byte_text, rate_text, retr_totals[i]))
        lines.append(_BW.format(sid, 0.0, duration, byte_text, rate_text))
    all_bytes = sum(totals)
    byte_text = unit_text(all_bytes, bits=False)
    rate_text = unit_text(all_bytes / duration, bits=True)
    lines.append(_SUM_BW_RETRANS_END.format(0.0, duration, byte_text, rate_text, sum(retr_totals)))
    lines.append(_SUM_BW_END.format(0.0, duration, byte_text, rate_text))
    lines += ["", "iperf Done."]
    return SynthRun(lines=lines, intervals=intervals, streams=streams)
