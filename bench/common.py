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
    """A benchmark's headline (reported, never gated on): a ratio of the measured figure to a
    baseline measured in the same run, on the same machine, against a target on that ratio.
    Absolute figures depend on the machine; they are printed, in ``info``, for information only.

    ``ratio`` is ``measured / baseline``; ``per`` says what the baseline is (for the line);
    ``higher_is_better`` says which way the target goes.
    """

    name: str
    ratio: float
    target: float
    per: str
    higher_is_better: bool = False
    info: str = ""
    note: str = ""

    @property
    def passed(self) -> bool:
        """True when the ratio meets the target (NaN, i.e. no measurement, never passes)."""
        if math.isnan(self.ratio):
            return False
        return self.ratio >= self.target if self.higher_is_better else self.ratio <= self.target

    def line(self) -> str:
        """E.g. ``load: 3.1x np.frombuffer (target <= 8x) PASS [info: 4.2 ms] [...]``."""
        op = ">=" if self.higher_is_better else "<="
        info = f" [info: {self.info}]" if self.info else ""
        note = f" [{self.note}]" if self.note else ""
        return (
            f"{self.name}: {fmt(self.ratio)}x {self.per} (target {op} {fmt(self.target)}x)"
            f" {'PASS' if self.passed else 'MISS'}{info}{note}"
        )


def ratio(measured: Sequence[float] | float, baseline: Sequence[float] | float) -> float:
    """median(measured) / median(baseline) (NaN when either is missing or the baseline is 0)."""
    m = measured if isinstance(measured, float | int) else median(measured)
    b = baseline if isinstance(baseline, float | int) else median(baseline)
    if math.isnan(m) or math.isnan(b) or b == 0:
        return math.nan
    return float(m) / float(b)


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


class NotRunnable(Exception):
    """A benchmark this machine cannot run (a program or package is missing); the message says
    what, and ``python -m bench`` reports it as not run instead of as a failure."""
