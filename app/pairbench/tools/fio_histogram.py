"""The completion-latency histogram of a fio run (json+ ``clat_ns.bins`` of its final
document, per direction, merged over the jobs): the ``fio_histogram`` analysis stored with
the run, and the latency range of each of fio's buckets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pairbench.tools.base import Parser
from pairbench.tools.fio_auto import FioAutoParser
from pairbench.tools.fio_json import fio_percentile

HISTOGRAM_KIND: Final = "fio_histogram"
# The percentiles the payload gives for each direction (as the summary's metric suffixes).
PERCENTILES: Final = (("p50", 50.0), ("p99", 99.0), ("p999", 99.9), ("p9999", 99.99))
# fio's histogram (stat.h): 2^6 buckets per power of two; below 2^7 ns one per nanosecond.
_PLAT_BITS: Final = 6


def bucket_range_ns(value: int) -> tuple[float, float]:
    """The latencies (ns, ``[low, high)``) of the fio bucket whose json+ key is ``value``:
    fio keys a bucket by the middle of its range (``plat_idx_to_val``), one per ns below
    128 ns, then 64 per power of two."""
    if value < 2 << _PLAT_BITS:
        return float(value), float(value + 1)
    error_bits = value.bit_length() - 1 - _PLAT_BITS
    width = float(1 << error_bits)
    return value - width / 2.0, value + width / 2.0


def histogram_payload(bins_by_direction: Mapping[str, Mapping[int, float]]) -> dict[str, Any]:
    """The stored analysis: for each direction, its buckets ``[[latency_ns, count], ...]``
    (ascending, empty ones left out), the I/O count and the p50/p99/p99.9/p99.99 (µs) by
    fio's rule (the first bucket whose cumulative count reaches the share)."""
    directions: dict[str, Any] = {}
    for name, bins in bins_by_direction.items():
        kept = {int(k): float(v) for k, v in bins.items() if v > 0}
        if not kept:
            continue
        percentiles = {}
        for key, share in PERCENTILES:
            value = fio_percentile(kept, share)
            if value is not None:
                percentiles[key] = value / 1000.0
        directions[name] = {
            "bins": [[k, _whole(v)] for k, v in sorted(kept.items())],
            "ios": _whole(sum(kept.values())),
            "percentiles_us": percentiles,
        }
    return {"unit": "ns", "source": "fio json+ clat_ns.bins", "directions": directions}


def _whole(count: float) -> int | float:
    return int(count) if count.is_integer() else count


def fio_run_analyses(parser: Parser) -> dict[str, dict[str, Any]]:
    """The analyses of a finished fio run from its parser: the latency histogram when the
    output was json+ (``Tool.run_analyses``)."""
    if not isinstance(parser, FioAutoParser):
        return {}
    bins = parser.final_bins()
    if not bins:
        return {}
    return {HISTOGRAM_KIND: histogram_payload(bins)}
