"""Statistics for people: relative changes ("+12.3 %"), p-values and coefficients of variation.

Values with units (and their scales) are printed by ``domain.units``, the one unit vocabulary.
"""

from __future__ import annotations

import math

from pairbench.domain.units import NO_VALUE, decimals_for


def format_percent_change(fraction: float | None) -> str:
    """A relative change as ``+12.3 %``, ``-0.03 %``, ``0.00 %``; "—" when unknown."""
    if fraction is None or not math.isfinite(fraction):
        return NO_VALUE
    pct = fraction * 100.0
    digits = 2 if abs(pct) < 1 else 1 if abs(pct) < 1000 else 0
    text = f"{pct:+.{digits}f} %"
    return "0.00 %" if float(text[:-2]) == 0 else text


def format_p(p: float | None) -> str:
    """A p-value: ``p = 0.032``, ``p < 0.001``; "—" when no test applied."""
    if p is None or not math.isfinite(p):
        return NO_VALUE
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def format_fraction(value: float | None) -> str:
    """A coefficient of variation as a percentage, ``1.8 %``."""
    if value is None or not math.isfinite(value):
        return NO_VALUE
    return f"{value * 100:.{decimals_for(value * 100, 2)}f} %"
