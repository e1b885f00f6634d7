"""SNIA PTS steady state (the specification's rule, unrounded): a window of rounds whose
tracking variable moved little (data excursion) and did not trend (slope excursion).
CloudHarmony's own arithmetic of the same rule is ``analysis.cloudharmony``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pairbench.domain.storage import (
    DEFAULT_DATA_EXCURSION,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_SLOPE_EXCURSION,
)


@dataclass(frozen=True, slots=True)
class SteadyParams:
    """The rule's parameters (PTS-E 1.1 defaults): a window of ``window`` rounds; its
    max − min at most ``data_excursion`` × its mean; the least-squares line's rise across the
    window, |slope| × (window − 1), at most ``slope_excursion`` × its mean; at most
    ``max_rounds`` rounds."""

    window: int = 5
    data_excursion: float = DEFAULT_DATA_EXCURSION
    slope_excursion: float = DEFAULT_SLOPE_EXCURSION
    max_rounds: int = DEFAULT_MAX_ROUNDS

    def __post_init__(self) -> None:
        if self.window < 2:
            raise ValueError("a steady-state window needs at least 2 rounds")
        if self.max_rounds < self.window:
            raise ValueError("the maximum number of rounds is smaller than the window")
        if not (0 < self.data_excursion < 1 and 0 < self.slope_excursion < 1):
            raise ValueError("the excursion limits are fractions of the mean, between 0 and 1")


@dataclass(frozen=True, slots=True)
class WindowCheck:
    """A rule applied to the window that ends at round ``round`` (1-based): every figure a
    report shows (the window's mean, max − min and the fitted line), and both verdicts as
    the rule (``rule``: ``pts`` or ``cloudharmony``) decided them."""

    round: int
    values: tuple[float, ...]
    mean: float
    data_excursion: float  # max − min
    data_limit: float
    slope: float  # per round
    intercept: float  # the fitted value at the window's first round
    slope_excursion: float  # |slope| × (rounds − 1)
    slope_limit: float
    data_ok: bool
    slope_ok: bool
    rule: str = "pts"

    @property
    def steady(self) -> bool:
        """Both checks pass."""
        return self.data_ok and self.slope_ok


class SteadyState(StrEnum):
    """Where a test stands: still measuring, steady, or out of rounds."""

    PENDING = "pending"
    REACHED = "reached"
    NOT_REACHED = "not reached"


@dataclass(frozen=True, slots=True)
class SteadyVerdict:
    """The state after the rounds so far, with the window that decided it (the first steady
    one, else the last one checked; None before the first full window)."""

    state: SteadyState
    rounds: int
    window: WindowCheck | None

    @property
    def reached_at(self) -> int | None:
        """The round that ended the test at steady state."""
        return self.window.round if self.state is SteadyState.REACHED and self.window else None


def check_window(values: Sequence[float], end_round: int, params: SteadyParams) -> WindowCheck:
    """The rule on the ``params.window`` rounds that end at ``end_round`` (1-based)."""
    if end_round < params.window or end_round > len(values):
        raise ValueError(f"no full window of {params.window} rounds ends at round {end_round}")
    window = tuple(float(v) for v in values[end_round - params.window : end_round])
    if not all(math.isfinite(v) for v in window):
        raise ValueError(
            f"the window ending at round {end_round} holds a value that is not a number"
        )
    n = len(window)
    mean = sum(window) / n
    x_mean = (n - 1) / 2
    sxx = sum((x - x_mean) ** 2 for x in range(n))
    slope = sum((x - x_mean) * (v - mean) for x, v in enumerate(window)) / sxx
    data_excursion = max(window) - min(window)
    data_limit = params.data_excursion * mean
    slope_excursion = abs(slope) * (n - 1)
    slope_limit = params.slope_excursion * mean
    return WindowCheck(
        round=end_round,
        values=window,
        mean=mean,
        data_excursion=data_excursion,
        data_limit=data_limit,
        slope=slope,
        intercept=mean - slope * x_mean,
        slope_excursion=slope_excursion,
        slope_limit=slope_limit,
        data_ok=mean > 0 and data_excursion <= data_limit,
        slope_ok=mean > 0 and slope_excursion <= slope_limit,
    )


def steady_state(values: Sequence[float], params: SteadyParams | None = None) -> SteadyVerdict:
    """The verdict after ``values`` (one tracking value per finished round): the first round,
    from ``window`` on, whose window passes both checks; "not reached" once ``max_rounds``
    rounds passed none; else pending. Values after the deciding round are ignored."""
    params = params or SteadyParams()
    last: WindowCheck | None = None
    for end in range(params.window, min(len(values), params.max_rounds) + 1):
        last = check_window(values, end, params)
        if last.steady:
            return SteadyVerdict(SteadyState.REACHED, end, last)
    rounds = min(len(values), params.max_rounds)
    state = SteadyState.NOT_REACHED if rounds >= params.max_rounds else SteadyState.PENDING
    return SteadyVerdict(state, rounds, last)
