"""A fio run's stored latency histogram (the ``fio_histogram`` analysis) for display: the
buckets of each direction with their latency ranges, and its lines in ``runs show``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pairbench.domain.units import format_value
from pairbench.tools.fio_histogram import HISTOGRAM_KIND, PERCENTILES, bucket_range_ns

# How each percentile is named on screen.
PERCENTILE_LABELS = {"p50": "p50", "p99": "p99", "p999": "p99.9", "p9999": "p99.99"}

__all__ = [
    "HISTOGRAM_KIND",
    "PERCENTILES",
    "PERCENTILE_LABELS",
    "DirectionHistogram",
    "describe_histogram",
    "directions",
]


@dataclass(frozen=True, slots=True)
class DirectionHistogram:
    """One direction's buckets: latency range (µs, ``[low, high)``) and I/O count each,
    ascending, and its percentiles (µs, by the summary's suffixes ``p50``... ``p9999``)."""

    direction: str
    low_us: list[float]
    high_us: list[float]
    counts: list[float]
    percentiles_us: dict[str, float]

    @property
    def ios(self) -> float:
        """The I/Os the histogram counts."""
        return sum(self.counts)


def directions(payload: Mapping[str, Any]) -> list[DirectionHistogram]:
    """The directions of a stored histogram (read before write); malformed parts left out."""
    out: list[DirectionHistogram] = []
    stored = payload.get("directions")
    if not isinstance(stored, Mapping):
        return out
    for name in sorted(stored, key=lambda n: (n != "read", n)):
        part = stored[name]
        bins = part.get("bins") if isinstance(part, Mapping) else None
        if not isinstance(bins, list):
            continue
        low: list[float] = []
        high: list[float] = []
        counts: list[float] = []
        for pair in bins:
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(x, int | float) for x in pair)
            ):
                lo, hi = bucket_range_ns(int(pair[0]))
                low.append(lo / 1000.0)
                high.append(hi / 1000.0)
                counts.append(float(pair[1]))
        raw = part.get("percentiles_us")
        percentiles = (
            {str(k): float(v) for k, v in raw.items() if isinstance(v, int | float)}
            if isinstance(raw, Mapping)
            else {}
        )
        if counts:
            out.append(DirectionHistogram(str(name), low, high, counts, percentiles))
    return out


def describe_histogram(payload: Mapping[str, Any]) -> list[str]:
    """Short lines for ``runs show``: per direction, its I/Os, buckets, range, percentiles."""
    lines: list[str] = []
    for one in directions(payload):
        shown = ", ".join(
            f"{PERCENTILE_LABELS[key]} {format_value('read_lat_p99_us', one.percentiles_us[key])}"
            for key, _ in PERCENTILES
            if key in one.percentiles_us
        )
        lines.append(
            f"{one.direction:<6} {one.ios:.0f} I/Os in {len(one.counts)} buckets, "
            f"{format_value('read_lat_p99_us', one.low_us[0])} to "
            f"{format_value('read_lat_p99_us', one.high_us[-1])}" + (f"; {shown}" if shown else "")
        )
    return lines or ["no latency histogram"]
