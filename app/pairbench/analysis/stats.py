"""Statistics across repeats: n, mean, median, stddev, CV, Student-t CI; Welch's two-group test.

Pure numpy and the standard library (the t distribution is ``analysis.tdist``). Inputs must
be finite: NaN or infinity is refused with ``StatsError`` naming the position, never averaged
away. Conventions: the standard deviation is the sample one (n − 1); the confidence interval
of a mean is mean ± t(1 − α/2, n − 1) · s / √n; a group of one run has no spread and no
interval (reported as None, with a note saying why).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pairbench.analysis.tdist import t_critical, t_two_sided_p

DEFAULT_CONFIDENCE = 0.95

FloatArray = npt.NDArray[np.float64]


class StatsError(ValueError):
    """Values a statistic cannot be computed from (empty, NaN, infinite); says which."""


def as_values(values: Iterable[float] | FloatArray, what: str = "values") -> FloatArray:
    """``values`` as a 1-D float64 array; refuses no values, NaN and infinities."""
    array = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=float)
    if array.ndim != 1:
        raise StatsError(f"{what}: expected a flat list of numbers, got shape {array.shape}")
    if array.size == 0:
        raise StatsError(f"{what}: no values")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        shown = ", ".join(f"#{i} = {array[i]}" for i in bad[:5])
        raise StatsError(
            f"{what}: {bad.size} value(s) are NaN or infinite ({shown}); "
            "statistics need finite numbers only"
        )
    return array


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval [low, high] at ``level`` (0.95 for 95 %)."""

    low: float
    high: float
    level: float

    @property
    def half_width(self) -> float:
        """Half the interval's width (the "±" of mean ± h)."""
        return (self.high - self.low) / 2.0


@dataclass(frozen=True, slots=True)
class GroupStats:
    """Descriptive statistics of one group of repeats."""

    n: int
    mean: float
    median: float
    stddev: float | None  # sample standard deviation; None for n = 1
    cv: float | None  # stddev / |mean|; None for n = 1 or a zero mean
    ci: Interval | None  # of the mean, Student t; None for n = 1
    minimum: float
    maximum: float
    note: str = ""


def describe(
    values: Iterable[float] | FloatArray, *, confidence: float = DEFAULT_CONFIDENCE
) -> GroupStats:
    """n, mean, median, sample stddev, CV, the Student-t CI of the mean, min and max."""
    x = as_values(values)
    n = int(x.size)
    lo, hi = float(x.min()), float(x.max())
    if lo == hi:  # identical values: exact, without the rounding of a sum
        mean = median = lo
    else:
        mean, median = float(np.mean(x)), float(np.median(x))
    if n == 1:
        note = "one run: no spread and no confidence interval"
        return GroupStats(1, mean, median, None, None, None, lo, hi, note)
    stddev = 0.0 if lo == hi else float(np.std(x, ddof=1))
    half = t_critical(confidence, n - 1) * stddev / math.sqrt(n)
    cv = stddev / abs(mean) if mean != 0 else None
    note = "identical values: no spread" if lo == hi else ""
    return GroupStats(
        n, mean, median, stddev, cv, Interval(mean - half, mean + half, confidence), lo, hi, note
    )


@dataclass(frozen=True, slots=True)
class Difference:
    """Group A against group B (the baseline): mean(A) − mean(B) with Welch's t-test.

    ``relative`` is the difference as a fraction of mean(B) (None when mean(B) is 0). ``ci``,
    ``t``, ``df`` and ``p_value`` are None when the test does not apply; ``note`` says why.
    """

    difference: float
    relative: float | None
    ci: Interval | None
    t: float | None
    df: float | None
    p_value: float | None
    note: str = ""


def welch(
    a: Iterable[float] | FloatArray,
    b: Iterable[float] | FloatArray,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Difference:
    """Welch's unequal-variance t-test of mean(a) − mean(b), with its confidence interval."""
    xa, xb = as_values(a, "group A"), as_values(b, "group B")
    sa, sb = describe(xa), describe(xb)
    diff = sa.mean - sb.mean
    relative = diff / sb.mean if sb.mean != 0 else None
    if sa.n < 2 or sb.n < 2:
        return Difference(
            diff, relative, None, None, None, None, "Welch's test needs ≥ 2 runs in each group"
        )
    assert sa.stddev is not None and sb.stddev is not None
    va, vb = sa.stddev**2 / sa.n, sb.stddev**2 / sb.n
    se = math.sqrt(va + vb)
    if se == 0.0:
        return Difference(
            diff,
            relative,
            None,
            None,
            None,
            None,
            "neither group varies: no t-test applies (the difference is exact for these runs)",
        )
    df = (va + vb) ** 2 / (va**2 / (sa.n - 1) + vb**2 / (sb.n - 1))
    t = diff / se
    half = t_critical(confidence, df) * se
    return Difference(
        diff,
        relative,
        Interval(diff - half, diff + half, confidence),
        t,
        df,
        t_two_sided_p(t, df),
    )
