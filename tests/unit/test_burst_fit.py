"""The "will my workload fit" calculator and the per-group burst table."""

from __future__ import annotations

import math

import pytest

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.analysis.burst_workload import group_estimates, workload_fit

# The field study's r4.large: 0.75 Gbit/s baseline, 10 Gbit/s burst, 2,700 Gbit bucket.
R4_LARGE = {"baseline_bps": 0.75e9, "burst_bps": 10e9, "bucket_bits": 2700e9}


def test_the_field_study_example() -> None:
    """Steady 0.6 Gbit/s: credits come back at 0.15 Gbit/s; a 10 Gbit/s burst drains 9.25
    (the baseline keeps refilling during it; the study's rougher 10 / 0.15 ignores that)."""
    fit = workload_fit(**R4_LARGE, steady_bps=0.6e9, need_bps=10e9, burst_length_s=10)
    assert fit.fits
    assert fit.refill_bps == pytest.approx(0.15e9)
    assert fit.drain_bps == pytest.approx(9.25e9)
    assert fit.max_burst_s == pytest.approx(2700 / 9.25)  # ≈ 292 s, the study's ~295 s
    assert fit.refill_s == pytest.approx(18000)
    assert fit.period_s == pytest.approx(2700 / 9.25 + 18000)
    assert fit.duty_cycle == pytest.approx(0.15 / 9.4)
    assert fit.burst_seconds_per_hour == pytest.approx(3600 * 0.15 / 9.4)
    # 10 s at 10 Gbit/s uses 92.5 Gbit, back after 617 s: one such burst every ~627 s.
    assert fit.every_s == pytest.approx(10 + 10 * 9.25 / 0.15)


def test_a_need_within_the_baseline_always_fits() -> None:
    fit = workload_fit(**R4_LARGE, steady_bps=0.1e9, need_bps=0.7e9)
    assert fit.fits and fit.max_burst_s == math.inf and fit.duty_cycle == 1.0
    assert fit.every_s is None


@pytest.mark.parametrize(
    ("steady", "need", "length", "words"),
    [
        (0.6e9, 11e9, None, "above the burst rate"),
        (0.8e9, 5e9, None, "steady use is above the baseline"),
        (0.75e9, 5e9, None, "credits never come back"),
        (0.6e9, 10e9, 600.0, "more than a full bucket"),
    ],
)
def test_what_does_not_fit_says_why(
    steady: float, need: float, length: float | None, words: str
) -> None:
    fit = workload_fit(**R4_LARGE, steady_bps=steady, need_bps=need, burst_length_s=length)
    assert not fit.fits
    assert words in fit.reason


def test_no_refill_means_no_period() -> None:
    fit = workload_fit(**R4_LARGE, steady_bps=0.75e9, need_bps=5e9, burst_length_s=10)
    assert fit.refill_s == math.inf and fit.duty_cycle == 0.0 and fit.every_s == math.inf
    assert fit.to_json()["every_s"] is None  # JSON has no infinity


@pytest.mark.parametrize(
    "bad",
    [
        {"baseline_bps": -1.0},
        {"bucket_bits": math.nan},
        {"burst_bps": 0.5e9},  # below the baseline
        {"burst_length_s": 0.0},
    ],
)
def test_bad_inputs_are_refused(bad: dict[str, float]) -> None:
    args: dict[str, float | None] = {
        **R4_LARGE,
        "steady_bps": 0.1e9,
        "need_bps": 5e9,
        "burst_length_s": None,
    }
    args.update(bad)
    with pytest.raises(ValueError):
        workload_fit(**args)  # type: ignore[arg-type]


def _estimate(burst: float, base: float, bucket: float, seconds: float) -> BurstEstimate:
    return BurstEstimate(
        BurstState.CONFIRMED,
        seconds + 40,
        int(seconds + 40),
        burst_bps=burst,
        baseline_bps=base,
        bucket_bits=bucket,
        burst_seconds=seconds,
        step_t=seconds,
    )


def test_groups_take_median_rates_and_the_largest_bucket() -> None:
    rows = [
        ("r4.large", 1, _estimate(10.1e9, 0.75e9, 2700e9, 295)),
        ("r4.large", 2, _estimate(10.0e9, 0.74e9, 1300e9, 140)),  # started half drained
        ("r4.large", 3, _estimate(9.9e9, 0.76e9, 2650e9, 290)),
        ("r4.xlarge", 4, _estimate(10.0e9, 1.25e9, 5145e9, 589)),
        ("r4.xlarge", 5, BurstEstimate(BurstState.NO_STEP, 60, 60, burst_bps=10e9)),
    ]
    large, xlarge = group_estimates(rows)
    assert large.group == "r4.large" and large.runs == (1, 2, 3)
    assert large.burst_bps == pytest.approx(10.0e9)
    assert large.baseline_bps == pytest.approx(0.75e9)
    assert large.bucket_bits == 2700e9 and large.burst_seconds == 295
    assert xlarge.runs == (4,)  # the run without a step is left out
    assert large.to_json()["runs"] == [1, 2, 3]
    assert group_estimates([]) == []
