"""The SNIA PTS steady-state rule on round series whose figures are worked out by hand."""

from __future__ import annotations

import pytest

from pairbench.analysis.steady_state import (
    SteadyParams,
    SteadyState,
    check_window,
    steady_state,
)


def test_five_equal_rounds_are_steady_at_round_5() -> None:
    verdict = steady_state([100.0] * 5)
    assert verdict.state is SteadyState.REACHED and verdict.reached_at == 5
    assert verdict.window is not None
    assert (verdict.window.mean, verdict.window.data_excursion, verdict.window.slope) == (
        100.0,
        0.0,
        0.0,
    )


def test_four_rounds_are_pending_whatever_they_hold() -> None:
    verdict = steady_state([100.0] * 4)
    assert verdict.state is SteadyState.PENDING and verdict.window is None


def test_a_decaying_drive_is_steady_at_round_12() -> None:
    rounds = [300, 250, 200, 160, 130, 115, 125, 102, 101, 100, 100, 99, 50]
    verdict = steady_state(rounds)
    assert verdict.state is SteadyState.REACHED and verdict.reached_at == 12
    w = verdict.window
    assert w is not None and w.values == (102, 101, 100, 100, 99)
    # By hand: mean 100.4; max - min 3 <= 20.08; deviations 1.6 0.6 -0.4 -0.4 -1.4 against
    # x - 2 = -2..2 give sum 7.0 / 10 = -0.7 per round, |slope| x 4 = 2.8 <= 10.04.
    assert w.mean == pytest.approx(100.4)
    assert w.data_excursion == 3 and w.data_limit == pytest.approx(20.08)
    assert w.slope == pytest.approx(-0.7) and w.slope_excursion == pytest.approx(2.8)
    assert w.slope_limit == pytest.approx(10.04)
    assert w.intercept == pytest.approx(101.8)  # 100.4 + 0.7 x 2
    # The round before: rounds 7-11 (125 .. 100) move 25 > 21.12 (20 % of 105.6).
    before = check_window(rounds, 11, SteadyParams())
    assert before.mean == pytest.approx(105.6) and not before.data_ok


def test_a_trend_inside_the_band_fails_the_slope_check_only() -> None:
    # 90 95 100 105 110: mean 100, max - min 20 <= 20 (data ok, on the limit); slope 5 per
    # round, x 4 = 20 > 10.
    w = check_window([90, 95, 100, 105, 110], 5, SteadyParams())
    assert w.data_ok and not w.slope_ok and not w.steady
    assert w.slope == pytest.approx(5.0) and w.slope_excursion == pytest.approx(20.0)


def test_a_drive_that_never_settles_ends_after_the_maximum_rounds() -> None:
    rounds = [80.0, 120.0] * 20  # 40 apart around 100: 40 > 20 in every window
    verdict = steady_state(rounds[:24])
    assert verdict.state is SteadyState.PENDING and verdict.rounds == 24
    verdict = steady_state(rounds)
    assert verdict.state is SteadyState.NOT_REACHED and verdict.rounds == 25
    assert verdict.reached_at is None and verdict.window is not None
    assert verdict.window.round == 25  # the last window checked, for the report


def test_the_limits_are_parameters() -> None:
    rounds = [90, 95, 100, 105, 110]
    assert not steady_state(rounds).window.steady  # type: ignore[union-attr]
    loose = SteadyParams(slope_excursion=0.25)
    assert steady_state(rounds, loose).reached_at == 5
    tight = SteadyParams(data_excursion=0.1, slope_excursion=0.25)
    assert steady_state(rounds, tight).state is SteadyState.PENDING


def test_zero_or_bad_values_are_never_steady() -> None:
    assert steady_state([0.0] * 5).state is SteadyState.PENDING  # nothing measured
    with pytest.raises(ValueError, match="not a number"):
        steady_state([100.0, 100.0, float("nan"), 100.0, 100.0])
    with pytest.raises(ValueError):
        SteadyParams(window=1)
    with pytest.raises(ValueError):
        SteadyParams(max_rounds=4)
    with pytest.raises(ValueError):
        SteadyParams(data_excursion=1.5)
