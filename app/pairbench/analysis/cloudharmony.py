"""CloudHarmony block-storage's steady-state rule, reproduced to the last bit, and the
``ss_*`` fields its results carry.

Its check of a window (``BlockStorageTest::isSteadyState``): the 5 tracking values keyed by
their round numbers; the mean rounded to 3 decimals; the least-squares slope and
y-intercept (at round 0) each rounded to 3 decimals; the slope excursion |slope × 4|
rounded to 1 decimal; limits: ``ss_verification`` % of the rounded mean for the slope
excursion and twice that for the data excursion (max − min, unrounded). Its tracking
values are in its own units (write IOPS, mean write latency in ms, write MB/s = KiB/s ÷
1024), so a latency rise under 0.05 ms across the window counts as no slope at all.
Rounding is PHP's (``analysis.php_numbers``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.analysis.php_numbers import php_round, php_text
from pairbench.analysis.steady_state import SteadyState

WINDOW = 5  # rounds: CloudHarmony's window is fixed


@dataclass(frozen=True, slots=True)
class ReferenceWindow:
    """CloudHarmony's check of the window that ends at ``end_round``: its own figures, in
    the tracking variable's CloudHarmony unit."""

    end_round: int
    metrics: tuple[float, ...]  # rounds end_round − 4 .. end_round
    verification: float  # ss_verification, percent
    average: float
    slope: float
    y_intercept: float  # the fitted value at round 0
    max_data_excursion: float
    max_slope_excursion: float
    largest_data_excursion: float
    largest_slope_excursion: float

    @property
    def first_round(self) -> int:
        return self.end_round - len(self.metrics) + 1

    @property
    def data_ok(self) -> bool:
        return self.largest_data_excursion <= self.max_data_excursion

    @property
    def slope_ok(self) -> bool:
        return self.largest_slope_excursion <= self.max_slope_excursion

    @property
    def steady(self) -> bool:
        return self.data_ok and self.slope_ok


def verification_percent(slope_excursion: float) -> float:
    """A slope-excursion limit (a fraction of the mean) as CloudHarmony's ``ss_verification``
    (percent; its data-excursion limit is twice that)."""
    return round(slope_excursion * 100.0, 9)


def reference_window(
    values: Sequence[float], end_round: int, verification: float
) -> ReferenceWindow:
    """CloudHarmony's check of the ``WINDOW`` rounds of ``values`` (one per round, round 1
    first) that end at ``end_round``."""
    if end_round < WINDOW or end_round > len(values):
        raise ValueError(f"no full window of {WINDOW} rounds ends at round {end_round}")
    rounds = range(end_round - WINDOW + 1, end_round + 1)
    metrics = tuple(float(values[r - 1]) for r in rounds)
    n = WINDOW
    sum_x = sum(rounds)
    sum_y = 0.0
    for y in metrics:  # PHP's array_sum: left to right
        sum_y += y
    sum_xy = 0.0
    sum_x_sq = 0
    for x, y in zip(rounds, metrics, strict=True):
        sum_xy += x * y
        sum_x_sq += x * x
    denominator = n * sum_x_sq - sum_x * sum_x
    slope = php_round((n * sum_xy - sum_x * sum_y) / denominator, 3)
    y_intercept = php_round((sum_y * sum_x_sq - sum_x * sum_xy) / denominator, 3)
    average = php_round(sum_y / n, 3)
    max_slope = average * (verification * 0.01)
    return ReferenceWindow(
        end_round=end_round,
        metrics=metrics,
        verification=verification,
        average=average,
        slope=slope,
        y_intercept=y_intercept,
        max_data_excursion=max_slope * 2,
        max_slope_excursion=max_slope,
        largest_data_excursion=max(metrics) - min(metrics),
        largest_slope_excursion=php_round(abs(slope * 4), 1),
    )


@dataclass(frozen=True, slots=True)
class ReferenceVerdict:
    """CloudHarmony's verdict after the rounds so far: the first steady window, else the
    last one checked (None before round 5)."""

    state: SteadyState
    rounds: int
    window: ReferenceWindow | None


def reference_verdict(
    values: Sequence[float], max_rounds: int, verification: float
) -> ReferenceVerdict:
    """The first round from 5 on whose window CloudHarmony calls steady; "not reached" once
    ``max_rounds`` rounds passed none; else pending. Values after it are ignored."""
    last: ReferenceWindow | None = None
    for end in range(WINDOW, min(len(values), max_rounds) + 1):
        last = reference_window(values, end, verification)
        if last.steady:
            return ReferenceVerdict(SteadyState.REACHED, end, last)
    rounds = min(len(values), max_rounds)
    state = SteadyState.NOT_REACHED if rounds >= max_rounds else SteadyState.PENDING
    return ReferenceVerdict(state, rounds, last)


def _number(value: float) -> float | int:
    """A whole float as an int (PHP prints 10.0 as ``10``)."""
    return int(value) if value == int(value) else value


def ss_window_fields(window: ReferenceWindow | None) -> dict[str, float | int | str]:
    """The ``ss_*`` fields CloudHarmony writes of its deciding window, in the order its code
    writes them: figures rounded to 4 decimals, the fit's formula, the rounds. None at all
    for a window it did not call steady (it writes them only for a steady one)."""
    if window is None or not window.steady:
        return {}
    figures = {
        "ss_average": window.average,
        "ss_max_data_excursion": window.max_data_excursion,
        "ss_max_slope_excursion": window.max_slope_excursion,
        "ss_largest_data_excursion": window.largest_data_excursion,
        "ss_largest_slope_excursion": window.largest_slope_excursion,
        "ss_slope": window.slope,
        "ss_y_intercept": window.y_intercept,
    }
    out: dict[str, float | int | str] = {k: php_round(v, 4) for k, v in figures.items()}
    out["ss_linear_fit_formula"] = f"{php_text(window.slope)} * R + {php_text(window.y_intercept)}"
    out["ss_start"] = window.first_round
    out["ss_stop"] = window.end_round
    out["ss_rounds"] = f"{window.first_round}-{window.end_round}"
    return out


def ss_fields(
    window: ReferenceWindow | None, max_rounds: int, verification: float
) -> dict[str, float | int | str]:
    """Every ``ss_*`` field of CloudHarmony's results row: its window's (``ss_window_fields``)
    and its two run options, ``ss_max_rounds`` and ``ss_verification`` (percent)."""
    out = ss_window_fields(window)
    out["ss_max_rounds"] = max_rounds
    out["ss_verification"] = _number(verification)
    return out
