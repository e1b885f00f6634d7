"""The online burst-credit model on synthetic series and a real shaped iperf3 output."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

import pairbench.analysis.burst_model as burst_module
from pairbench.analysis.burst import BurstEstimate, BurstParams, BurstState, refill_time_s
from pairbench.analysis.burst_model import BurstModel, analyze_series
from pairbench.domain import Record
from pairbench.tools.iperf3_text import Iperf3TextParser
from testkit import FIXTURES, require

BURST, BASE = 1e9, 2e8


def step_series(
    n: int,
    step_t: float,
    *,
    burst: float = BURST,
    base: float = BASE,
    dt: float = 1.0,
    start: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Interval ends and the exact mean throughput of each interval for a step at ``step_t``."""
    t = start + dt * np.arange(1, n + 1, dtype=float)
    begin = t - dt
    share = np.clip((step_t - begin) / dt, 0.0, 1.0)  # the part of each interval at the burst
    return t, base + (burst - base) * share


def noisy(v: np.ndarray, seed: int, jitter: float = 0.1, dips: float = 0.05) -> np.ndarray:
    """±``jitter`` uniform noise and single-interval retransmit dips (to 30–70 %)."""
    rng = np.random.default_rng(seed)
    out = v * (1 + rng.uniform(-jitter, jitter, v.size))
    hit = rng.random(v.size) < dips
    out[hit] *= rng.uniform(0.3, 0.7, int(hit.sum()))
    return out


def feed(t: np.ndarray, v: np.ndarray, params: BurstParams | None = None) -> list[BurstEstimate]:
    model = BurstModel(params)
    return [model.update(float(a), float(b)) for a, b in zip(t, v, strict=True)]


def expected_bucket(step_t: float, burst: float = BURST, base: float = BASE) -> float:
    return (burst - base) * step_t


# -- clean steps ---------------------------------------------------------------------------


@pytest.mark.parametrize("step_t", [21.3, 20.0, 37.75, 8.5])
def test_clean_step_is_exact_and_confirmed_within_ten_seconds(step_t: float) -> None:
    t, v = step_series(90, step_t)
    estimates = feed(t, v)
    final = estimates[-1]
    assert final.detected and final.state is BurstState.CONFIRMED
    assert final.burst_bps == pytest.approx(BURST, rel=1e-9)
    assert final.baseline_bps == pytest.approx(BASE, rel=1e-9)
    assert final.step_t == pytest.approx(step_t, abs=1e-6)
    assert final.burst_seconds == pytest.approx(step_t, abs=1e-6)
    assert final.bucket_bits == pytest.approx(expected_bucket(step_t), rel=1e-6)
    assert final.confirmed_at is not None
    assert step_t < final.confirmed_at <= step_t + 10
    # Before the step: no step and the burst rate; the estimate never claims a step too early.
    before = [e for e in estimates if e.t <= step_t]
    assert all(e.state is BurstState.NO_STEP for e in before)
    assert before[-1].burst_bps == pytest.approx(BURST)
    assert before[-1].baseline_bps is None and before[-1].bucket_bits is None
    first_confirmed = next(e for e in estimates if e.detected)
    assert first_confirmed.t == final.confirmed_at
    # Once confirmed it stays confirmed, with the same confirmation time.
    after = [e for e in estimates if e.t >= final.confirmed_at]
    assert all(e.detected and e.confirmed_at == final.confirmed_at for e in after)


def test_states_go_no_step_then_suspected_then_confirmed() -> None:
    t, v = step_series(40, 15.0)
    states = [e.state for e in feed(t, v)]
    assert states[:15] == [BurstState.NO_STEP] * 15
    # Confirmed with the sixth full interval at the baseline (t = 21 s).
    assert states[15:20] == [BurstState.SUSPECTED] * 5
    assert states[20:] == [BurstState.CONFIRMED] * (40 - 20)


def test_uncertainties_are_small_on_a_clean_step_and_present() -> None:
    final = feed(*step_series(60, 21.3))[-1]
    for name in ("burst_bps", "baseline_bps", "step_t", "burst_seconds", "bucket_bits"):
        value, err = getattr(final, name), getattr(final, f"{name}_err")
        assert err is not None and err > 0, name
        assert err < 0.02 * abs(value), name


@pytest.mark.parametrize("step_t", [2.5, 3.0, 4.2])
def test_a_step_in_the_first_seconds_is_found(step_t: float) -> None:
    t, v = step_series(40, step_t)
    final = feed(t, v)[-1]
    assert final.detected
    assert final.step_t == pytest.approx(step_t, abs=1e-6)
    assert final.bucket_bits == pytest.approx(expected_bucket(step_t), rel=1e-6)
    assert final.confirmed_at is not None and final.confirmed_at <= step_t + 10


def test_a_burst_shorter_than_two_intervals_is_not_called_a_step() -> None:
    """The documented limit: min_burst_intervals full intervals must precede the step (a
    sender's first interval also fills its socket buffer and can read high on a flat link)."""
    t, v = step_series(40, 1.5)
    assert not feed(t, v)[-1].detected
    shorter = BurstParams(min_burst_intervals=1)
    assert feed(t, v, shorter)[-1].detected


def test_variable_intervals_and_a_start_time() -> None:
    t, v = step_series(120, 130.0 + 12.25, dt=0.5, start=130.0)
    model = BurstModel(start_t=130.0)
    for a, b in zip(t, v, strict=True):
        final = model.update(float(a), float(b))
    assert final.detected
    assert final.step_t == pytest.approx(142.25, abs=1e-6)
    assert final.burst_seconds == pytest.approx(12.25, abs=1e-6)
    assert final.bucket_bits == pytest.approx(expected_bucket(12.25), rel=1e-6)


def test_a_ratio_of_two_and_a_ratio_of_thirteen() -> None:
    for burst, base, step in ((6e8, 3e8, 28.0), (10e9, 0.75e9, 295.0)):
        t, v = step_series(int(step) + 40, step, burst=burst, base=base)
        final = analyze_series(t, noisy(v, 3, jitter=0.03, dips=0.0))
        assert final.detected
        assert final.burst_bps == pytest.approx(burst, rel=0.01)
        assert final.baseline_bps == pytest.approx(base, rel=0.01)
        assert final.step_t == pytest.approx(step, abs=0.5)
        assert final.bucket_bits == pytest.approx((burst - base) * step, rel=0.02)


# -- noisy steps ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_noisy_step_with_jitter_and_retransmit_dips(seed: int) -> None:
    step = 20.0 + seed * 1.37
    t, clean = step_series(int(step) + 45, step)
    estimates = feed(t, noisy(clean, seed))
    final = estimates[-1]
    assert final.detected
    assert final.burst_bps == pytest.approx(BURST, rel=0.05)
    assert final.baseline_bps == pytest.approx(BASE, rel=0.05)
    # A retransmit dip can hit the very interval of the step: then it looks up to one
    # interval early (its share of the burst is lost), so one interval is the tolerance here.
    assert final.step_t == pytest.approx(step, abs=1.0)
    assert final.bucket_bits == pytest.approx(expected_bucket(step), rel=0.1)
    assert final.confirmed_at is not None and final.confirmed_at - step <= 10
    assert not any(e.detected for e in estimates if e.t < step)


@pytest.mark.parametrize("seed", range(20))
def test_jittery_step_estimates_with_honest_uncertainties(seed: int) -> None:
    step = 30.0 + seed * 0.77
    t, clean = step_series(int(step) + 45, step)
    final = analyze_series(t, noisy(clean, seed, jitter=0.1, dips=0.0))
    assert final.detected
    for name, truth in (
        ("burst_bps", BURST),
        ("baseline_bps", BASE),
        ("step_t", step),
        ("bucket_bits", expected_bucket(step)),
    ):
        value, err = getattr(final, name), getattr(final, f"{name}_err")
        assert abs(value - truth) < 4 * err, (name, value, truth, err)
    assert final.step_t == pytest.approx(step, abs=0.3)
    assert final.bucket_bits == pytest.approx(expected_bucket(step), rel=0.03)


# -- what is not a step --------------------------------------------------------------------


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("depth", [0.0, 0.5])
def test_a_dip_that_recovers_is_not_a_step(length: int, depth: float) -> None:
    v = np.full(80, BURST)
    v[30 : 30 + length] = BURST * depth
    t = np.arange(1, 81, dtype=float)
    estimates = feed(t, v)
    assert not any(e.detected for e in estimates)
    assert estimates[-1].state is BurstState.NO_STEP
    assert not analyze_series(t, v).detected


def test_a_long_outage_is_confirmed_then_withdrawn_when_it_recovers() -> None:
    v = np.full(80, BURST)
    v[30:40] = BASE
    t = np.arange(1, 81, dtype=float)
    estimates = feed(t, v)
    assert any(e.detected for e in estimates)  # ten seconds at a lower level is a step then
    assert estimates[-1].state is BurstState.NO_STEP
    assert estimates[-1].confirmed_at is None
    assert not analyze_series(t, v).detected


def test_a_flat_link_has_no_step() -> None:
    t = np.arange(1, 3601, dtype=float)
    estimates = feed(t, np.full(t.size, 7.5e8))
    assert all(e.state is BurstState.NO_STEP for e in estimates)
    assert estimates[-1].burst_bps == pytest.approx(7.5e8)


@pytest.mark.parametrize("seed", range(40))
def test_ordinary_noise_is_never_a_step(seed: int) -> None:
    """±10 % jitter, 5 % retransmit dips, a few dips of 2–3 intervals, a fast first interval."""
    rng = np.random.default_rng(1000 + seed)
    v = noisy(np.full(600, 7.5e8), seed)
    for start in rng.integers(5, 590, size=4):
        v[start : start + int(rng.integers(2, 4))] *= rng.uniform(0.0, 0.6)
    v[0] *= 1.6  # the first interval also fills the socket buffer
    t = np.arange(1, 601, dtype=float)
    assert not any(e.detected for e in feed(t, v))
    assert not analyze_series(t, v).detected


def test_a_rise_is_not_a_step() -> None:
    t, v = step_series(60, 20.0, burst=BASE, base=BURST)  # low, then high
    assert not any(e.detected for e in feed(t, v))


def test_a_small_drop_is_not_a_step() -> None:
    t, v = step_series(60, 20.0, burst=1e9, base=0.8e9)  # 20 %: below min_drop
    assert not feed(t, v)[-1].detected


# -- the real fixture ----------------------------------------------------------------------


def test_real_shaped_burst_fixture() -> None:
    """iperf3 through htb 1 Gbit + tbf 200 Mbit with a 500 MiB bucket (no size table there:
    tbf counted whole frames, so the bucket in TCP payload is 500 MiB × 1448/1514)."""
    path = FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out"
    require(path.is_file(), f"fixture missing: {path}")
    parser = Iperf3TextParser()
    model = BurstModel()
    estimates = []
    for line in path.read_text().splitlines():
        estimate = model.update_records(parser.feed(line))
        if estimate is not None:
            estimates.append(estimate)
    final = estimates[-1]
    assert len(estimates) == 12
    assert final.detected
    assert final.burst_bps == pytest.approx(927e6, rel=0.01)
    assert final.baseline_bps == pytest.approx(192.75e6, rel=0.01)
    payload_bucket = 500 * 2**20 * 8 * 1448 / 1514
    assert final.bucket_bits == pytest.approx(payload_bucket, rel=0.02)
    assert final.step_t == pytest.approx(5.47, abs=0.1)
    assert final.confirmed_at == 12.0


# -- the model's mechanics -----------------------------------------------------------------


def test_online_and_whole_series_agree() -> None:
    t, clean = step_series(100, 33.4)
    v = noisy(clean, 7)
    online = feed(t, v)[-1]
    offline = analyze_series(t, v)
    assert offline.to_json() == pytest.approx(online.to_json())


def test_bad_samples_are_ignored() -> None:
    model = BurstModel()
    first = model.update(1.0, BURST)
    assert model.update(1.0, 5.0) == first  # not after the previous sample
    assert model.update(0.5, 5.0) == first
    assert model.update(2.0, math.nan) == first
    assert model.update(math.inf, BURST) == first
    assert model.samples == 1
    whole = analyze_series([1, 2, 2, 3], [1e9, 1e9, 5.0, math.nan])
    assert (whole.t, whole.samples) == (2.0, 2)


def test_memory_is_bounded_and_a_late_step_still_found() -> None:
    params = BurstParams(max_samples=1024)
    t, v = step_series(3000, 2500.5)
    model = BurstModel(params)
    for a, b in zip(t, v, strict=True):
        final = model.update(float(a), float(b))
        assert model.samples < 1024
    assert final.detected
    assert final.step_t == pytest.approx(2500.5, abs=2.0)  # merged pairs: 2–4 s intervals
    assert final.bucket_bits == pytest.approx(expected_bucket(2500.5), rel=0.01)
    times, values = model.series()
    assert times.size == values.size == model.samples
    assert np.all(np.diff(times) > 0)


def test_update_records_takes_the_aggregate_throughput() -> None:
    model = BurstModel()
    assert model.update_records([Record("5", 1.0, ("throughput_bps",), (1.0,))]) is None
    estimate = model.update_records(
        [
            Record("5", 1.0, ("throughput_bps",), (4e8,)),
            Record("sum", 1.0, ("retransmits", "throughput_bps"), (3.0, 8e8)),
        ]
    )
    assert estimate is not None and estimate.burst_bps == pytest.approx(8e8)
    assert model.samples == 1


def test_a_batch_of_records_is_fitted_once_and_ends_where_one_by_one_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t, v = step_series(600, 21.3)
    records = [
        Record("sum", float(ti), ("throughput_bps",), (float(vi),))
        for ti, vi in zip(t, v, strict=True)
    ]
    one_by_one = BurstModel()
    for record in records:
        one_by_one.update_records([record])
    fits: list[int] = []
    real_fit = burst_module._fit

    def counting_fit(*args: Any, **kwargs: Any) -> BurstEstimate:
        fits.append(1)
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(burst_module, "_fit", counting_fit)
    batched = BurstModel()
    for start in range(0, len(records), 60):  # a minute of intervals per batch, as a replay
        batched.update_records(records[start : start + 60])
    assert len(fits) == 10  # one fit per batch, not one per interval
    a, b = one_by_one.estimate, batched.estimate
    assert b.detected and a.detected
    assert (b.step_t, b.burst_bps, b.baseline_bps, b.bucket_bits) == (
        a.step_t,
        a.burst_bps,
        a.baseline_bps,
        a.bucket_bits,
    )


def test_json_round_trip_and_no_nan() -> None:
    final = feed(*step_series(60, 21.3))[-1]
    data = final.to_json()
    text = json.dumps(data, allow_nan=False)
    assert {
        "detected",
        "burst_bps",
        "baseline_bps",
        "burst_seconds",
        "bucket_bits",
        "step_t",
    } <= set(data)
    assert data["refill_seconds"] == pytest.approx(final.bucket_bits / BASE)  # type: ignore[operator]
    assert BurstEstimate.from_json(json.loads(text)) == final
    empty = BurstModel().estimate.to_json()
    assert empty["detected"] is False and empty["burst_bps"] is None


def test_params_are_checked() -> None:
    for bad in (
        {"min_drop": 0.0},
        {"min_drop": 1.0},
        {"confirm_intervals": 0},
        {"hold_fraction": 0.3},
        {"max_samples": 10},
    ):
        with pytest.raises(ValueError):
            BurstParams(**bad)  # type: ignore[arg-type]


def test_refill_time() -> None:
    assert refill_time_s(2700e9, 0.75e9) == pytest.approx(3600)
    assert refill_time_s(2700e9, 0.75e9, idle_use_bps=0.6e9) == pytest.approx(18000)
    assert refill_time_s(1e9, 1e8, idle_use_bps=1e8) == math.inf
    with pytest.raises(ValueError):
        refill_time_s(-1.0, 1e8)
    final = feed(*step_series(60, 21.3))[-1]
    assert final.refill_seconds() == pytest.approx(expected_bucket(21.3) / BASE)
