"""A campaign report's figures: values pooled per group, ranks per column (best first), runs
binned by time of day (hour, or minute for a short campaign), and each group against a
baseline group (ratio, percent difference, Welch's test)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pairbench.analysis.stats import Difference, GroupStats, describe, welch

MINUTE_BINS_BELOW_S = 2 * 3600  # a campaign spanning less is binned by minute
LocalTime = Callable[[float], time.struct_time]


def pooled_stats(values: Iterable[float]) -> GroupStats | None:
    """The statistics of every value pooled (None when there is none)."""
    pool = [float(v) for v in values]
    return describe(pool) if pool else None


def ranks(means: Mapping[str, float | None], *, lower_is_better: bool) -> dict[str, int]:
    """1 for the best mean, then 2, ...; equal means share a rank and the next rank skips
    (1, 1, 3); groups without a mean get no rank."""
    known = {g: m for g, m in means.items() if m is not None and math.isfinite(m)}
    out: dict[str, int] = {}
    for group, mean in known.items():
        better = sum(
            1 for other in known.values() if (other < mean if lower_is_better else other > mean)
        )
        out[group] = better + 1
    return out


@dataclass(frozen=True, slots=True)
class TimeBin:
    """The runs of one hour of day (or one minute), with their statistics."""

    key: int  # the hour of day 0–23, or the epoch minute
    label: str  # "14:00", or "14:07" by minute
    values: tuple[float, ...]
    stats: GroupStats


def by_minute(times: Sequence[float]) -> bool:
    """True when the runs span less than two hours: hours would give one or two points."""
    return bool(times) and max(times) - min(times) < MINUTE_BINS_BELOW_S


def hours_of_day(times: Iterable[float], local: LocalTime = time.localtime) -> set[int]:
    """The distinct hours of day (local time) the runs started in."""
    return {local(t).tm_hour for t in times}


def wants_time_of_day(
    schedule_kind: str, times: Sequence[float], local: LocalTime = time.localtime
) -> bool:
    """A scheduled campaign, or one whose runs span more than one hour of day, has a
    time-of-day chart (if it has runs)."""
    if not times:
        return False
    return schedule_kind != "once" or len(hours_of_day(times, local)) > 1


def time_bins(
    points: Iterable[tuple[float, float]],
    *,
    minute: bool,
    local: LocalTime = time.localtime,
) -> list[TimeBin]:
    """``(start time, value)`` pairs binned by hour of day (pooled over days) or, with
    ``minute``, by minute of the clock; bins in time order, only those holding runs."""
    bins: dict[int, list[float]] = {}
    for at, value in points:
        key = int(at // 60) if minute else local(at).tm_hour
        bins.setdefault(key, []).append(float(value))
    out = []
    for key in sorted(bins):
        if minute:
            clock = local(key * 60.0)
            label = f"{clock.tm_hour:02d}:{clock.tm_min:02d}"
        else:
            label = f"{key:02d}:00"
        out.append(TimeBin(key, label, tuple(bins[key]), describe(bins[key])))
    return out


@dataclass(frozen=True, slots=True)
class VsBaseline:
    """One group's mean against the baseline group's: ``ratio`` = mean ÷ baseline mean,
    ``change`` = ratio − 1; ``test`` is Welch's (None unless both have ≥ 2 values)."""

    group: str
    mean: float
    baseline_mean: float
    ratio: float | None
    change: float | None
    test: Difference | None
    better: bool | None  # the group beats the baseline (by its mean); None when equal


def against_baseline(
    values: Mapping[str, Sequence[float]], baseline: str, *, lower_is_better: bool
) -> list[VsBaseline]:
    """Every other group with values against ``baseline`` (empty when the baseline has
    none), in the mapping's order."""
    base = values.get(baseline, ())
    if not base:
        return []
    base_mean = describe(base).mean
    out = []
    for group, vals in values.items():
        if group == baseline or not vals:
            continue
        mean = describe(vals).mean
        ratio = mean / base_mean if base_mean != 0 else None
        test = welch(vals, base) if len(vals) >= 2 and len(base) >= 2 else None
        better = None if mean == base_mean else (mean < base_mean) == lower_is_better
        out.append(
            VsBaseline(
                group, mean, base_mean, ratio, None if ratio is None else ratio - 1, test, better
            )
        )
    return out
