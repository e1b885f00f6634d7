"""Shared helpers for the benchmarks: timing, medians, number formatting and verdict lines."""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

Out = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A benchmark's headline figure against its target (reported, never gated on)."""

    name: str
    value: float
    unit: str
    target: float
    higher_is_better: bool = True
    note: str = ""

    @property
    def passed(self) -> bool:
        """True when the median meets the target (NaN, i.e. no measurement, never passes)."""
        if math.isnan(self.value):
            return False
        return self.value >= self.target if self.higher_is_better else self.value <= self.target

    def line(self) -> str:
        """E.g. ``ingest: median 1.23e6 samples/s (target >= 1e6) PASS``."""
        op = ">=" if self.higher_is_better else "<="
        unit = f" {self.unit}" if self.unit else ""
        note = f" [{self.note}]" if self.note else ""
        return (
            f"{self.name}: median {fmt(self.value)}{unit} (target {op} {fmt(self.target)})"
            f" {'PASS' if self.passed else 'MISS'}{note}"
        )


def fmt(value: float) -> str:
    """Three significant digits; scientific as ``1.23e6`` outside [0.01, 10000)."""
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if 100 <= abs(value) < 10_000:
        return f"{value:.0f}"
    if value == 0 or 0.01 <= abs(value) < 100:
        return f"{value:.3g}"
    mantissa, exponent = f"{value:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Run ``fn`` once after a full garbage collection; return (seconds, result)."""
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def median(values: Sequence[float]) -> float:
    """The median, NaN for no values."""
    return statistics.median(values) if values else math.nan


def spread(values: Sequence[float], scale: float = 1.0, unit: str = "") -> str:
    """``median X unit (min A, max B, n=N)`` of ``values`` multiplied by ``scale``."""
    if not values:
        return "no values"
    scaled = [v * scale for v in values]
    unit = f" {unit}" if unit else ""
    return (
        f"median {fmt(median(scaled))}{unit} "
        f"(min {fmt(min(scaled))}, max {fmt(max(scaled))}, n={len(scaled)})"
    )
