"""The burst model on runs reported every 0.1 s: the detection rule keeps its length in
seconds (two seconds at the burst rate, six to confirm), so a one-second dip is no step, the
step time is found to a tenth of a second, and the online model and a stored series agree."""

from __future__ import annotations

import numpy as np
import pytest
from test_burst_model import BASE, BURST, expected_bucket, noisy, step_series

from pairbench.analysis.burst import BurstParams, BurstState
from pairbench.analysis.burst_model import BurstModel, analyze_series
from pairbench.analysis.compare import Curve, median_curve

DT = 0.1


def _feed(t: np.ndarray, v: np.ndarray) -> list[BurstState]:
    model = BurstModel()
    return [model.update(float(a), float(b)).state for a, b in zip(t, v, strict=True)]


def test_the_rule_scales_to_the_interval_and_not_beyond() -> None:
    scaled = BurstParams().for_interval(0.1)
    assert (scaled.min_burst_intervals, scaled.confirm_intervals) == (20, 60)
    assert BurstParams().for_interval(0.25).confirm_intervals == 24
    assert BurstParams().for_interval(1.0) == BurstParams()
    assert BurstParams().for_interval(5.0) == BurstParams()
    assert BurstParams().for_interval(0.001).confirm_intervals == 120  # capped at 0.05 s


@pytest.mark.parametrize("length_s", [0.3, 0.6, 1.0, 2.0])
def test_a_dip_of_a_second_or_two_at_a_tenth_of_a_second_is_no_step(length_s: float) -> None:
    t = DT * np.arange(1, 801, dtype=float)
    v = np.full(t.size, BURST)
    dip = (t > 30.0) & (t <= 30.0 + length_s + 1e-9)
    v[dip] = BASE
    assert BurstState.CONFIRMED not in _feed(t, v)
    assert not analyze_series(t, v).detected


@pytest.mark.parametrize("step_t", [4.05, 12.3, 29.97])
def test_a_clean_step_at_a_tenth_of_a_second_is_exact(step_t: float) -> None:
    t, v = step_series(600, step_t, dt=DT)
    model = BurstModel()
    for a, b in zip(t, v, strict=True):
        model.update(float(a), float(b))
    estimate = model.estimate
    assert estimate.state is BurstState.CONFIRMED
    assert estimate.step_t == pytest.approx(step_t, abs=1e-6)
    assert estimate.bucket_bits == pytest.approx(expected_bucket(step_t), rel=1e-6)
    assert estimate.confirmed_at is not None
    assert 6.0 <= estimate.confirmed_at - step_t <= 7.0  # six seconds, as at 1 s
    assert analyze_series(t, v) == estimate


@pytest.mark.parametrize("seed", range(8))
def test_a_noisy_step_at_a_tenth_of_a_second(seed: int) -> None:
    """±20 % jitter and 5 % retransmit dips per 0.1 s interval (sub-second TCP is jittery)."""
    t, v = step_series(900, 30.0, dt=DT)
    estimate = analyze_series(t, noisy(v, seed, jitter=0.2))
    assert estimate.detected
    assert estimate.step_t == pytest.approx(30.0, abs=0.3)
    assert estimate.burst_bps == pytest.approx(BURST, rel=0.05)
    assert estimate.baseline_bps == pytest.approx(BASE, rel=0.05)
    # The bucket sums what was sent, dips included (the tolerance of the 1 s test).
    assert estimate.bucket_bits == pytest.approx(expected_bucket(30.0), rel=0.1)
    assert estimate.confirmed_at is not None and estimate.confirmed_at - 30.0 <= 10


@pytest.mark.parametrize("seed", range(8))
def test_sub_second_noise_is_never_a_step(seed: int) -> None:
    """±20 % jitter, retransmit dips, and stalls of 0.2 to 1.5 s (a lost burst of segments
    waiting for its retransmission timeout)."""
    rng = np.random.default_rng(2000 + seed)
    t = DT * np.arange(1, 1501, dtype=float)
    v = noisy(np.full(t.size, 7.5e8), seed, jitter=0.2)
    for start in rng.integers(50, 1400, size=4):
        v[start : start + int(rng.integers(2, 16))] *= rng.uniform(0.0, 0.3)
    if seed == 0:  # the online model too, once (a fit per interval)
        assert BurstState.CONFIRMED not in _feed(t, v)
    assert not analyze_series(t, v).detected


def test_the_median_of_a_tenth_and_a_one_second_run_is_on_the_coarser_grid() -> None:
    """A run at 0.1 s alternating 1 and 3 Gbit/s (mean 2) and runs at 1 s of 2 and 4:
    the 0.1 s run is averaged over each second, not sampled at its peaks."""
    fine_t = DT * np.arange(1, 101, dtype=float)
    fine = Curve("a", 1, "fine", "sum", fine_t, np.where(np.arange(100) % 2, 3e9, 1e9))
    coarse_t = np.arange(1.0, 11.0)
    two = Curve("a", 2, "two", "sum", coarse_t, np.full(10, 2e9))
    four = Curve("a", 3, "four", "sum", coarse_t, np.full(10, 4e9))
    grid, median = median_curve([fine, two, four])
    assert np.allclose(np.diff(grid), 1.0)
    assert grid[0] == 1.0 and grid[-1] == 10.0
    assert np.allclose(median, 2e9)
    _, alone = median_curve([fine])
    assert np.allclose(alone[::2], 3e9) or np.allclose(alone[::2], 1e9)  # its own 0.1 s grid


@pytest.mark.parametrize("seed", range(4))
def test_levels_of_counts_that_alternate_at_a_tenth_of_a_second(seed: int) -> None:
    """At 0.1 s a shaped rate's counts alternate between two values (the lab's 200 Mbit/s
    baseline read 156–167 and 235–250 Mbit/s, more often the low one): the level is their
    rate, not the more frequent of the two."""
    t, v = step_series(150, 6.3, dt=DT)
    rng = np.random.default_rng(seed)
    low = rng.random(v.size) < 0.6  # 60 % of intervals read 0.8x, 40 % 1.3x: the mean is 1x
    v = v * np.where(low, 0.8, 1.3)
    estimate = analyze_series(t, v)
    assert estimate.detected
    assert estimate.baseline_bps == pytest.approx(BASE, rel=0.05)
    assert estimate.burst_bps == pytest.approx(BURST, rel=0.05)
