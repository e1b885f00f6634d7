"""Numbers for people: a metric's display unit and scale, ~3 significant digits, "± CI", "%".

Tables, the terminal and chart axes share these so a value reads the same everywhere. Bit
rates scale in powers of 1000 (Mbit/s, Gbit/s), byte rates in powers of 1024 (MiB/s), as
``domain.units`` does; microseconds become milliseconds past 1000 µs; counts and IOPS take a
k or M prefix past 10,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairbench.domain import metric_unit
from pairbench.domain.units import scale_bits


@dataclass(frozen=True, slots=True)
class Scale:
    """Multiply a raw value by ``factor`` to show it in ``unit``."""

    factor: float
    unit: str


def scale_for(metric: str, reference: float) -> Scale:
    """The display scale of ``metric`` chosen for values around ``reference``."""
    ref = abs(reference) if math.isfinite(reference) else 0.0
    if metric.endswith("_bps"):
        scaled, unit = scale_bits(ref)
        return Scale(scaled / ref if ref else 1.0, unit)
    if metric.endswith("_bytes_per_s"):
        return _binary(ref, "B/s")
    if metric.endswith("_bytes"):
        return _binary(ref, "B")
    if metric.endswith("_us"):
        return Scale(1e-3, "ms") if ref >= 1000 else Scale(1.0, "µs")
    if metric.endswith("_ms"):
        return Scale(1e-3, "s") if ref >= 1000 else Scale(1.0, "ms")
    if metric.endswith("_percent"):
        return Scale(1.0, "%")
    unit = metric_unit(metric)
    unit = "" if unit == "count" else unit
    if ref >= 1e7:
        return Scale(1e-6, f"M{unit}" if unit else "M")
    if ref >= 1e4:
        return Scale(1e-3, f"k{unit}" if unit else "k")
    return Scale(1.0, unit)


def _binary(ref: float, unit: str) -> Scale:
    prefixes = ("", "Ki", "Mi", "Gi", "Ti")
    index = 0
    while ref >= 1024 and index < len(prefixes) - 1:
        ref /= 1024
        index += 1
    return Scale(1024.0**-index, f"{prefixes[index]}{unit}")


def decimals_for(scaled: float, significant: int = 3) -> int:
    """Decimal places that show ``significant`` digits of ``scaled`` (never negative, ≤ 6)."""
    if scaled == 0 or not math.isfinite(scaled):
        return 0
    magnitude = math.floor(math.log10(abs(scaled)))
    return max(0, min(6, significant - 1 - magnitude))


def number(value: float, decimals: int) -> str:
    """A number with a fixed count of decimals ("-0.0" shown as "0.0")."""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_measure(
    metric: str,
    value: float | None,
    half_width: float | None = None,
    *,
    scale: Scale | None = None,
    unit: bool = True,
) -> str:
    """``9.79 Gbit/s``, or with a CI half-width ``9.79 ± 0.02 Gbit/s``; "—" for no value."""
    if value is None or not math.isfinite(value):
        return "—"
    scale = scale or scale_for(metric, value)
    scaled = value * scale.factor
    decimals = decimals_for(scaled)
    text = number(scaled, decimals)
    if half_width is not None and math.isfinite(half_width):
        half = half_width * scale.factor
        half_text = number(half, decimals)
        if half > 0 and float(half_text) == 0:
            half_text = f"{half:.1g}"
        text += f" ± {half_text}"
    return f"{text} {scale.unit}" if unit and scale.unit else text


def format_percent_change(fraction: float | None) -> str:
    """A relative change as ``+12.3 %``, ``-0.03 %``, ``0.00 %``; "—" when unknown."""
    if fraction is None or not math.isfinite(fraction):
        return "—"
    pct = fraction * 100.0
    digits = 2 if abs(pct) < 1 else 1 if abs(pct) < 1000 else 0
    text = f"{pct:+.{digits}f} %"
    return "0.00 %" if float(text[:-2]) == 0 else text


def format_p(p: float | None) -> str:
    """A p-value: ``p = 0.032``, ``p < 0.001``; "—" when no test applied."""
    if p is None or not math.isfinite(p):
        return "—"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def format_fraction(value: float | None) -> str:
    """A coefficient of variation as a percentage, ``1.8 %``."""
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value * 100:.{decimals_for(value * 100, 2)}f} %"
