"""fio's latency percentiles as a run's summary names them: the ones fio printed (its default
list, or the job's ``percentile_list``) of each latency it printed them for (completion:
``clat_percentiles``, on by default; total: ``lat_percentiles``; submission:
``slat_percentiles``), named with their unit."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Final

# fio's default percentile_list (stat.c), as its JSON keys print them.
DEFAULT_LIST: Final = frozenset(
    f"{p:.6f}" for p in (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)
)
# Of the default list, what the summary keeps (the established names).
DEFAULT_KEPT: Final = (
    ("50.000000", "p50"),
    ("99.000000", "p99"),
    ("99.900000", "p999"),
    ("99.990000", "p9999"),
)
# fio's JSON objects that carry percentiles, and the summary's word for each latency
# (completion latency keeps its established "lat": read_lat_p99_us).
LATENCIES: Final = (("clat_ns", "lat"), ("lat_ns", "total_lat"), ("slat_ns", "submit_lat"))
MAX_KEYS: Final = 64


def percentile_value(key: str) -> float | None:
    """A JSON percentile key (``"99.500000"``) as a number in (0, 100]; None for another key."""
    try:
        value = Decimal(key)
    except (InvalidOperation, ValueError):
        return None
    return float(value) if value.is_finite() and 0 < value <= 100 else None


def suffix(key: str) -> str:
    """The summary's name of a percentile: ``p50``, ``p99``, ``p999`` (99.9) and ``p9999``
    (99.99) as established, a whole one ``p1`` ... ``p100``, any other with ``_`` for its
    point (``p99_5``, ``p0_1``, ``p99_999``)."""
    for known, name in DEFAULT_KEPT:
        if key == known:
            return name
    text = format(Decimal(key).normalize(), "f")
    return "p" + text.replace(".", "_")


def reported(keys: Iterable[str]) -> list[tuple[str, str]]:
    """The percentiles a summary keeps of those fio printed (``keys``): of fio's default
    list, ``DEFAULT_KEPT``; of a list the job gave, every one, ascending."""
    printed = {key for key in keys if percentile_value(key) is not None}
    if printed == DEFAULT_LIST:
        return list(DEFAULT_KEPT)
    ordered = sorted(printed, key=lambda key: percentile_value(key) or 0.0)[:MAX_KEYS]
    return [(key, suffix(key)) for key in ordered]
