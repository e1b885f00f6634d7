"""Human-readable numbers with scaled units (bit rates in powers of 1000)."""

from __future__ import annotations

import math

_BIT_PREFIXES = ("", "K", "M", "G", "T")


def scale_bits(value: float) -> tuple[float, str]:
    """A bit rate as (scaled value, unit), e.g. 941e6 → (941.0, "Mbit/s")."""
    if not math.isfinite(value):
        return value, "bit/s"
    index = 0
    scaled = float(value)
    while abs(scaled) >= 1000 and index < len(_BIT_PREFIXES) - 1:
        scaled /= 1000
        index += 1
    return scaled, f"{_BIT_PREFIXES[index]}bit/s"


def format_bits(value: float) -> str:
    """A bit rate with 3–4 significant digits, e.g. "941 Mbit/s", "1.25 Gbit/s"."""
    scaled, unit = scale_bits(value)
    if not math.isfinite(scaled):
        return f"{scaled} {unit}"
    digits = 2 if abs(scaled) < 10 else 1 if abs(scaled) < 100 else 0
    return f"{scaled:.{digits}f} {unit}"


def format_bytes_rate(value: float) -> str:
    """A byte rate in powers of 1024, e.g. "142 MiB/s"."""
    scaled = float(value)
    prefixes = ("", "Ki", "Mi", "Gi", "Ti")
    index = 0
    while abs(scaled) >= 1024 and index < len(prefixes) - 1:
        scaled /= 1024
        index += 1
    digits = 2 if abs(scaled) < 10 else 1 if abs(scaled) < 100 else 0
    return f"{scaled:.{digits}f} {prefixes[index]}B/s"


def format_count(value: float) -> str:
    """A count or rate with a k/M suffix past 10,000, e.g. "64.8k"."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3g}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.3g}k"
    if value == int(value):
        return str(int(value))
    return f"{value:.4g}"


def format_value(metric: str, value: float) -> str:
    """A metric's value in readable form, chosen by the metric's name."""
    if not math.isfinite(value):
        return str(value)
    if metric.endswith("_bps"):
        return format_bits(value)
    if metric.endswith("_bytes_per_s"):
        return format_bytes_rate(value)
    if metric.endswith("_percent"):
        return f"{value:.3g} %"
    if metric.endswith("_ms"):
        return f"{value:.3g} ms"
    if metric.endswith("_us"):
        return f"{value / 1000:.3g} ms" if abs(value) >= 1000 else f"{value:.3g} µs"
    return format_count(value)
