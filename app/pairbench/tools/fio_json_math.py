"""The arithmetic of fio's JSON documents: an interval between two cumulative documents, the
records of an interval, the summary of a direction over jobs, fio's percentile rule."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from pairbench.domain import Record
from pairbench.tools.fio_json_doc import Dir, Latency
from pairbench.tools.fio_percentiles import LATENCIES, reported

__all__ = [
    "DIRECTIONS",
    "MIN_INTERVAL_MS",
    "ZERO",
    "Base",
    "Interval",
    "make_record",
    "merge_bins",
    "min_interval_ms",
    "next_interval",
    "percentile",
    "summarise",
]

# Intervals shorter than this (ms of fio runtime) are merged into the next one: the final
# document follows the last periodic one by a few ms to ~200 ms, and a 5 ms interval that
# only drains the I/Os in flight gives meaningless rates (0 I/Os issued, 8 completed).
MIN_INTERVAL_MS: Final = 100.0

DIRECTIONS: Final = ("read", "write")
_P99: Final = 99.0


class Base(NamedTuple):
    """What an interval is measured from: the previous document's cumulative figures."""

    runtime_ms: float
    ios: float
    io_bytes: float
    lat_sum_ns: float  # lat_ns.mean * lat_ns.N
    lat_n: float
    bins: Mapping[int, float] | None


ZERO: Final = Base(0.0, 0.0, 0.0, 0.0, 0.0, None)


class Interval(NamedTuple):
    """One direction of one job between two documents."""

    iops: float
    bytes_per_s: float
    lat_sum_ns: float  # for the interval's mean latency
    lat_n: float
    bins: dict[int, float] | None  # the interval's completion latency histogram


# One constant metrics tuple per combination of metrics a record carries (the recorder keys its
# buffers on the tuple); built on demand, at most 2 * 2^3 + ... distinct ones.
_METRICS_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _metrics_tuple(names: list[str]) -> tuple[str, ...]:
    key = tuple(names)
    return _METRICS_TUPLES.setdefault(key, key)


def min_interval_ms(status_interval_ms: float) -> float:
    """The shortest interval kept at a status interval: ``MIN_INTERVAL_MS``, or half the
    status interval when that is less (at ``--status-interval=100ms`` an interval is 99 to
    101 ms of runtime; the final document's few ms are still merged)."""
    return min(MIN_INTERVAL_MS, status_interval_ms / 2.0)


def next_interval(
    cur: Dir, base: Base, min_ms: float = MIN_INTERVAL_MS
) -> tuple[Interval | None, Base]:
    """The interval from ``base`` to ``cur`` (None if there is none yet) and the next base.

    fio resets its statistics when ``ramp_time`` ends; the interval then starts from zero. A
    reset shows as a counter that went down, or as the first latency samples after documents
    with I/O but none (fio records no latency during ``ramp_time``; the counters after the
    reset may well exceed those before it). An interval shorter than ``min_ms``
    (``min_interval_ms``) keeps the old base: its I/O goes into the next interval.
    """
    if (
        cur.runtime_ms < base.runtime_ms
        or cur.ios < base.ios
        or cur.io_bytes < base.io_bytes
        or (base.lat_n <= 0.0 < cur.lat_n and base.ios > 0.0)
    ):
        base = ZERO
    elif cur.lat_n < base.lat_n:
        base = base._replace(lat_sum_ns=0.0, lat_n=0.0, bins=None)
    lat_sum = cur.lat_mean_ns * cur.lat_n
    nxt = Base(cur.runtime_ms, cur.ios, cur.io_bytes, lat_sum, cur.lat_n, cur.bins)
    dt_ms = cur.runtime_ms - base.runtime_ms
    if dt_ms <= 0.0 or (cur.ios <= 0.0 and cur.io_bytes <= 0.0):
        return None, nxt
    if dt_ms < min_ms:
        return None, base
    bins: dict[int, float] | None = None
    if cur.bins is not None:
        bins = _bins_difference(cur.bins, base.bins)
    interval = Interval(
        (cur.ios - base.ios) * 1000.0 / dt_ms,
        (cur.io_bytes - base.io_bytes) * 1000.0 / dt_ms,
        lat_sum - base.lat_sum_ns,
        cur.lat_n - base.lat_n,
        bins,
    )
    return interval, nxt


def _bins_difference(
    cur: Mapping[int, float], base: Mapping[int, float] | None
) -> dict[int, float]:
    """``cur - base`` per bin, without empty bins; ``cur`` itself if a count went down."""
    if not base:
        return {k: v for k, v in cur.items() if v > 0.0}
    out: dict[int, float] = {}
    for k, v in cur.items():
        d = v - base.get(k, 0.0)
        if d < 0.0:
            return {k: v for k, v in cur.items() if v > 0.0}
        if d > 0.0:
            out[k] = d
    return out


def merge_bins(histograms: Iterable[Mapping[int, float]]) -> dict[int, float]:
    out: dict[int, float] = {}
    for bins in histograms:
        for k, v in bins.items():
            out[k] = out.get(k, 0.0) + v
    return out


def percentile(bins: Mapping[int, float], percent: float) -> float | None:
    """fio's rule (stat.c, calc_clat_percentiles): the first bin whose cumulative count
    reaches ``percent``% of all. Reproduces fio's printed percentiles from json+ bins."""
    total = sum(bins.values())
    if total <= 0.0:
        return None
    threshold = percent / 100.0 * total
    seen = 0.0
    for value in sorted(bins):
        seen += bins[value]
        if seen >= threshold:
            return float(value)
    return float(max(bins))


fio_percentile = percentile


def make_record(stream: str, t: float, by_dir: list[list[Interval | None]]) -> Record | None:
    """One stream's record from the intervals of its entries, per direction; None if empty."""
    names: list[str] = []
    values: list[float] = []
    for index, name in enumerate(DIRECTIONS):
        parts = [iv for iv in by_dir[index] if iv is not None]
        if not parts:
            continue
        names += (f"{name}_iops", f"{name}_bytes_per_s")
        values += (math.fsum(p.iops for p in parts), math.fsum(p.bytes_per_s for p in parts))
        lat_n = sum(p.lat_n for p in parts)
        if lat_n > 0.0:
            names.append(f"{name}_lat_mean_us")
            values.append(math.fsum(p.lat_sum_ns for p in parts) / lat_n / 1000.0)
        with_lat = [p for p in parts if p.lat_n > 0.0]
        if with_lat and all(p.bins is not None for p in with_lat):
            merged = merge_bins(p.bins for p in with_lat if p.bins is not None)
            p99 = percentile(merged, _P99)
            if p99 is not None:
                names.append(f"{name}_lat_p99_us")
                values.append(p99 / 1000.0)
    if not names:
        return None
    return Record(stream, t, _metrics_tuple(names), tuple(values))


def summarise(name: str, dirs: list[Dir], values: dict[str, float]) -> None:
    """Summary values of one direction over the ``jobs[]`` entries (see FioJsonParser)."""
    active = [d for d in dirs if d.ios > 0.0 or d.io_bytes > 0.0]
    if not active:
        return
    values[f"{name}_iops"] = math.fsum(d.iops for d in active)
    values[f"{name}_bytes_per_s"] = math.fsum(d.bw_bytes for d in active)
    with_lat = [d for d in active if d.lat_n > 0.0]
    if len(with_lat) == 1:
        values[f"{name}_lat_mean_us"] = with_lat[0].lat_mean_ns / 1000.0
    elif with_lat:
        lat_sum = math.fsum(d.lat_mean_ns * d.lat_n for d in with_lat)
        values[f"{name}_lat_mean_us"] = lat_sum / sum(d.lat_n for d in with_lat) / 1000.0
    if not with_lat:
        return
    for source, word in LATENCIES:
        latencies = [_latency(d, source) for d in with_lat]
        printed = [lat for lat in latencies if lat is not None and lat.percentiles]
        keys = reported(key for lat in printed for key in lat.percentiles)
        for key, value in _percentiles(printed, keys).items():
            values[f"{name}_{word}_{key}_us"] = value / 1000.0


def _latency(d: Dir, source: str) -> Latency | None:
    """One latency's percentiles and bins of a direction (completion latency: its own)."""
    return Latency(d.percentiles, d.bins) if source == "clat_ns" else d.more.get(source)


def _percentiles(printed: list[Latency], keys: list[tuple[str, str]]) -> dict[str, float]:
    """The percentiles (ns, by summary suffix) of a direction over its entries: the one
    entry's as fio printed them; for several, from their merged json+ histograms by fio's
    rule, or without histograms (plain json) the largest printed."""
    out: dict[str, float] = {}
    merged: dict[int, float] | None = None
    if len(printed) > 1 and all(lat.bins is not None for lat in printed):
        merged = merge_bins(lat.bins for lat in printed if lat.bins is not None)
    for key, suffix in keys:
        value: float | None
        if len(printed) == 1:
            value = printed[0].percentiles.get(key)
        elif merged is not None:
            value = percentile(merged, float(key))
        else:
            known = [lat.percentiles[key] for lat in printed if key in lat.percentiles]
            value = max(known) if known else None
        if value is not None:
            out[suffix] = value
    return out
