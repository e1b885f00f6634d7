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


def format_value(metric: str, value: float) -> str:
    """A metric's value in readable form, chosen by the metric's name."""
    if metric.endswith("_bps"):
        return format_bits(value)
    if metric.endswith("_percent"):
        return f"{value:.3g} %"
    if metric.endswith("_ms"):
        return f"{value:.3g} ms"
    if metric.endswith("_us"):
        return f"{value:.3g} µs"
    if value == int(value):
        return str(int(value))
    return f"{value:.4g}"
