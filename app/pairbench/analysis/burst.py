"""Burst credits: the estimate of a step from a burst rate to a baseline, and the fit behind it.

A throughput series runs at a burst rate until a credit bucket drains, then at a baseline.
The model (``analysis.burst_model.BurstModel``) is fed one interval at a time
(``update(t, throughput_bps)``, ``t`` the end of the interval in seconds since the run's
start) and answers a ``BurstEstimate`` at each step. Method, at every update over the whole
(bounded) history:

1. **Split.** The two-level least-squares fit (burst level before index ``k``, baseline
   after) is found for every ``k`` at once from cumulative sums, keeping only splits where the
   left mean is above the right one: O(n) vectorised.
2. **Transition.** A step rarely falls on an interval boundary: the interval it falls in has a
   value between the levels. The samples on either side of the split are placed by where their
   value lies between the two (robust) levels, ``f = (v − baseline) / (burst − baseline)``
   clipped to [0, 1]; the step time is the start of the last burst interval plus
   ``f × dt`` of each (sub-interval resolution), and transition samples are left out of the
   levels.
3. **Levels.** Burst and baseline are robust means (median, then the mean of what lies within
   3 MAD-sigmas), with standard errors from their spread (floored at 0.1 % of the level,
   iperf3's three significant digits).
4. **A step, not a dip.** A step is *confirmed* when the relative drop is at least
   ``min_drop``, at least ``min_contrast`` noise sigmas, at least ``min_burst_intervals``
   intervals preceded it, at least ``confirm_intervals`` intervals followed it, at least
   ``hold_fraction`` of the samples on each side lie on their side of the midpoint, and the
   latest ``confirm_intervals`` samples (their median) are still below it. The *first*
   confirmation is stricter: every one of the latest ``confirm_intervals`` samples below the
   midpoint, and ``hold_fraction`` of them within a quarter of the drop from the baseline (a
   rate limiter's baseline is flat and never bursts; a chain of dips is scattered). With fewer
   intervals after the drop it is only *suspected*; a dip that recovers fails the hold and is
   dropped. A confirmation is withdrawn when later data stop holding (the softer rule).
5. **Bucket.** What drained from the bucket is the throughput above the baseline up to the
   step: the sum of ``(v − baseline) × dt`` over the burst intervals plus the transition's
   share. On a clean step it equals ``(burst − baseline) × burst_seconds``; it stays right
   when the burst phase has dips (slow start, retransmissions).

Memory and time are bounded: the history grows by doubling and past ``max_samples`` pairs of
samples are merged (time-weighted), so an hour at 1 s is 3,600 floats per array and an update
costs a few O(n) numpy passes (~0.3 ms at n = 3,600). What a workload can do with the
bucket is ``analysis.burst_workload``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

# Median absolute deviation × this = the standard deviation, for normal noise.
_MAD_TO_SIGMA = 1.4826
# Samples further than this many sigmas from the median are left out of a level.
_LEVEL_CLIP_SIGMAS = 3.0
# A level's spread is never taken below this share of the level (iperf3 prints ~3 digits).
_RESOLUTION = 1e-3
# A sample beside the split whose value lies more than this share of the step away from its
# own level is part of the transition (excluded from the levels).
_TRANSITION_EDGE = 0.2
# A first confirmation needs most of the latest intervals this close to the baseline (a share
# of burst − baseline): a rate limiter's baseline is steady, a chain of dips is not.
_BASELINE_BAND = 0.25
# The timing of interval ends (iperf3 prints 2 decimals) as a share of an interval.
_TIMING_SHARE = 0.05


class BurstState(enum.StrEnum):
    """What the model knows so far."""

    NO_STEP = "no_step"  # no drop seen: the level so far is the burst rate (or a flat link)
    SUSPECTED = "suspected"  # a drop, not yet held for ``confirm_intervals``
    CONFIRMED = "confirmed"  # a drop that stayed: burst, baseline, step and bucket are known


@dataclass(frozen=True, slots=True)
class BurstParams:
    """The detection rule's knobs (the defaults suit 1 s intervals; ``for_interval`` scales
    them to shorter ones)."""

    min_drop: float = 0.3  # (burst − baseline) / burst at least this
    min_contrast: float = 4.0  # burst − baseline at least this many noise sigmas
    min_burst_intervals: int = 2  # full intervals at the burst rate before the step
    confirm_intervals: int = 6  # full intervals at the baseline after the step
    hold_fraction: float = 0.8  # share of each side that must lie on its side of the midpoint
    max_samples: int = 8192  # past this, pairs of samples are merged (bounded memory)

    def __post_init__(self) -> None:
        if not 0 < self.min_drop < 1:
            raise ValueError("min_drop must be between 0 and 1")
        if self.min_burst_intervals < 1 or self.confirm_intervals < 1:
            raise ValueError("min_burst_intervals and confirm_intervals must be at least 1")
        if not 0.5 <= self.hold_fraction <= 1:
            raise ValueError("hold_fraction must be between 0.5 and 1")
        if self.max_samples < 4 * (self.min_burst_intervals + self.confirm_intervals + 2):
            raise ValueError("max_samples is too small for the detection rule")

    def for_interval(self, interval_s: float) -> BurstParams:
        """These knobs for a series reporting every ``interval_s`` seconds: below 1 s the
        counts of intervals grow so that they keep their length in seconds (at 0.1 s: 20
        intervals at the burst rate, 60 to confirm); 1 s and longer: unchanged."""
        if not math.isfinite(interval_s) or interval_s >= 1.0 or interval_s <= 0.0:
            return self
        factor = 1.0 / max(interval_s, MIN_SCALED_INTERVAL_S)
        return replace(
            self,
            min_burst_intervals=math.ceil(self.min_burst_intervals * factor - 1e-6),
            confirm_intervals=math.ceil(self.confirm_intervals * factor - 1e-6),
        )


# The shortest interval ``BurstParams.for_interval`` scales to (shorter ones count as this).
MIN_SCALED_INTERVAL_S = 0.05
# How many first intervals tell a model its reporting interval (their median length).
LEARN_INTERVALS = 8


def learnt_interval(dt: FloatArray) -> float:
    """A series' reporting interval: the median of its first ``LEARN_INTERVALS`` lengths."""
    return float(np.median(dt[:LEARN_INTERVALS])) if dt.size else 1.0


@dataclass(frozen=True, slots=True)
class BurstEstimate:
    """The model's answer after an interval. Rates in bit/s, times in s, bucket in bits.

    Every ``*_err`` is one standard error. Before a step (``NO_STEP``) only ``burst_bps``
    (the level so far) is known; with a ``SUSPECTED`` step the other values are provisional;
    ``CONFIRMED`` (``detected``) means they hold. ``confirmed_at`` is the ``t`` at which the
    current step was first confirmed. ``burst_seconds`` runs from the run's start
    (``start_t``) to ``step_t``.
    """

    state: BurstState
    t: float
    samples: int
    burst_bps: float | None = None
    burst_bps_err: float | None = None
    baseline_bps: float | None = None
    baseline_bps_err: float | None = None
    step_t: float | None = None
    step_t_err: float | None = None
    burst_seconds: float | None = None
    burst_seconds_err: float | None = None
    bucket_bits: float | None = None
    bucket_bits_err: float | None = None
    confirmed_at: float | None = None
    start_t: float = 0.0

    @property
    def detected(self) -> bool:
        """True once a step is confirmed."""
        return self.state is BurstState.CONFIRMED

    def refill_seconds(self, idle_use_bps: float = 0.0) -> float | None:
        """Seconds to refill the bucket at the baseline while using ``idle_use_bps``."""
        if self.bucket_bits is None or self.baseline_bps is None:
            return None
        return refill_time_s(self.bucket_bits, self.baseline_bps, idle_use_bps)

    def to_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict (``detected``, ``state`` and every field)."""
        data = asdict(self)
        data["state"] = self.state.value
        refill = self.refill_seconds()
        return {
            "detected": self.detected,
            **{k: _finite_or_none(v) for k, v in data.items()},
            "refill_seconds": _finite_or_none(refill),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BurstEstimate:
        """The inverse of ``to_json`` (extra keys are ignored)."""
        names = {f for f in cls.__dataclass_fields__ if f != "state"}
        values = {k: data[k] for k in names if k in data}
        return cls(state=BurstState(data["state"]), **values)


def _finite_or_none(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True, slots=True)
class _Level:
    mean: float
    sigma: float
    n: int

    @property
    def err(self) -> float:
        return self.sigma / math.sqrt(max(self.n, 1))


def _robust_level(x: FloatArray, per_block: int = 1) -> _Level:
    """The mean of what lies within 3 MAD-sigmas of the median, with its spread; taken over
    the means of ``per_block`` consecutive samples (about a second of them: a tool's counts in
    0.1 s intervals alternate between two values, e.g. 160 and 245 Mbit/s for 200, whose
    median and MAD would keep one of the two), each sample by itself at 1 s and longer."""
    if per_block > 1 and x.size >= 2 * per_block:
        whole = x.size // per_block * per_block
        blocks = x[:whole].reshape(-1, per_block).mean(axis=1)
        x = np.append(blocks, x[whole:].mean()) if whole < x.size else blocks
    med = float(np.median(x))
    floor = _RESOLUTION * abs(med)
    sigma = max(float(np.median(np.abs(x - med))) * _MAD_TO_SIGMA, floor)
    kept = x[np.abs(x - med) <= _LEVEL_CLIP_SIGMAS * sigma]
    if kept.size == 0:  # pragma: no cover - the median's neighbours are always kept
        kept = x
    spread = float(kept.std(ddof=1)) if kept.size > 1 else sigma
    return _Level(float(kept.mean()), max(spread, floor), int(kept.size))


def _per_second(dt: FloatArray) -> int:
    """How many samples make about a second (1 at intervals of 1 s and longer)."""
    interval = float(np.median(dt)) if dt.size else 1.0
    if not math.isfinite(interval) or interval <= 0 or interval >= 1.0:
        return 1
    return max(1, round(1.0 / max(interval, MIN_SCALED_INTERVAL_S)))


def _best_split(v: FloatArray, min_left: int) -> int | None:
    """The ``k`` (left = v[:k]) of the least-squares two-level fit with a lower right level."""
    n = v.size
    if n - min_left < 1:
        return None
    c1 = np.concatenate([[0.0], np.cumsum(v)])
    c2 = np.concatenate([[0.0], np.cumsum(v * v)])
    k = np.arange(min_left, n)
    left_sum, right_sum = c1[k], c1[n] - c1[k]
    left_n, right_n = k.astype(np.float64), (n - k).astype(np.float64)
    cost = (c2[k] - left_sum**2 / left_n) + (c2[n] - c2[k] - right_sum**2 / right_n)
    cost[left_sum / left_n <= right_sum / right_n] = np.inf
    best = int(np.argmin(cost))
    return None if not np.isfinite(cost[best]) else int(k[best])


def _fit(
    t: FloatArray,
    dt: FloatArray,
    v: FloatArray,
    params: BurstParams,
    start_t: float,
    keep: bool = False,
) -> BurstEstimate:
    """The estimate from the whole history; ``keep``: a step is already confirmed (the
    softer rule keeps it). ``BurstModel`` adds ``confirmed_at``."""
    n = int(v.size)
    now = float(t[-1]) if n else start_t
    scale = float(np.median(np.abs(v))) if n else 0.0
    if n == 0 or scale <= 0:
        return BurstEstimate(BurstState.NO_STEP, now, n, start_t=start_t)
    x = v / scale  # work near 1: the sums of squares stay exact enough
    overall = _robust_level(x, _per_second(dt))
    no_step = BurstEstimate(
        BurstState.NO_STEP,
        now,
        n,
        burst_bps=overall.mean * scale,
        burst_bps_err=overall.err * scale,
        start_t=start_t,
    )
    k = _best_split(x, params.min_burst_intervals)
    if k is None:
        return no_step
    step = _describe_step(t, dt, x, k, params, keep)
    if step is None:
        return no_step
    burst, base, step_t, step_t_err, bucket, bucket_err, state = step
    burst_seconds = step_t - start_t
    return BurstEstimate(
        state,
        now,
        n,
        burst_bps=burst.mean * scale,
        burst_bps_err=burst.err * scale,
        baseline_bps=base.mean * scale,
        baseline_bps_err=base.err * scale,
        step_t=step_t,
        step_t_err=step_t_err,
        burst_seconds=burst_seconds,
        burst_seconds_err=step_t_err,
        bucket_bits=bucket * scale,
        bucket_bits_err=bucket_err * scale,
        start_t=start_t,
    )


_Step = tuple[_Level, _Level, float, float, float, float, BurstState]


def _describe_step(
    t: FloatArray, dt: FloatArray, x: FloatArray, k: int, params: BurstParams, keep: bool
) -> _Step | None:
    """Levels, step time, bucket and state of the split at ``k``; None if it is no step."""
    n = x.size
    hi0, lo0 = float(np.median(x[:k])), float(np.median(x[k:]))
    span0 = hi0 - lo0
    if hi0 <= 0 or span0 <= 0:
        return None
    # The samples beside the split that lie between the levels form the transition.
    last_left_is_transition = (x[k - 1] - lo0) / span0 < 1 - _TRANSITION_EDGE
    first_right_is_transition = (x[k] - lo0) / span0 > _TRANSITION_EDGE
    left_core = x[: k - 1] if last_left_is_transition else x[:k]
    right_core = x[k + 1 :] if first_right_is_transition else x[k:]
    if left_core.size < params.min_burst_intervals or right_core.size < 1:
        return None
    per_block = _per_second(dt)
    burst, base = _robust_level(left_core, per_block), _robust_level(right_core, per_block)
    span = burst.mean - base.mean
    noise = max(burst.sigma, base.sigma)
    if burst.mean <= 0 or span / burst.mean < params.min_drop or span < params.min_contrast * noise:
        return None
    mid = (burst.mean + base.mean) / 2
    if np.mean(left_core > mid) < params.hold_fraction:
        return None
    if np.mean(right_core < mid) < params.hold_fraction:
        return None  # the drop did not stay (a dip that recovered)
    recent = right_core[-params.confirm_intervals :]
    if float(np.median(recent)) >= mid:
        return None
    # A first confirmation needs every one of the latest intervals below the midpoint (a
    # baseline never bursts: its bucket is empty); a confirmed step keeps the softer rule.
    # It must also be a level: most of them near the baseline (dips are scattered).
    tight = np.mean(np.abs(recent - base.mean) <= _BASELINE_BAND * span) >= params.hold_fraction
    strict = bool(np.all(recent < mid)) and bool(tight)
    held = right_core.size >= params.confirm_intervals and (keep or strict)
    # Where the step falls: the start of the last burst interval plus each side's share.
    share_before = float(np.clip((x[k - 1] - base.mean) / span, 0.0, 1.0))
    share_after = float(np.clip((x[k] - base.mean) / span, 0.0, 1.0)) if k < n else 0.0
    step_start = float(t[k - 1] - dt[k - 1])
    into = share_before * float(dt[k - 1]) + share_after * float(dt[k])
    step_t = step_start + into
    transition_n = 1 + int(first_right_is_transition or last_left_is_transition)
    step_t_err = float(dt[k - 1]) * math.hypot(
        noise / span * math.sqrt(transition_n), _TIMING_SHARE
    )
    # What drained: the excess over the baseline of the burst intervals, plus the transition's.
    excess = float(np.dot(x[: k - 1] - base.mean, dt[: k - 1])) + span * into
    burst_time = step_t - float(t[0] - dt[0])
    left_dt = dt[: k - 1]
    bucket_err = math.sqrt(
        (burst_time * base.err) ** 2
        + (burst.sigma**2) * float(np.dot(left_dt, left_dt))
        + (span * step_t_err) ** 2
    )
    state = BurstState.CONFIRMED if held else BurstState.SUSPECTED
    return burst, base, step_t, step_t_err, excess, bucket_err, state


def refill_time_s(bucket_bits: float, baseline_bps: float, idle_use_bps: float = 0.0) -> float:
    """Seconds for an empty bucket to fill again at the baseline rate while ``idle_use_bps``
    is being used (credits accrue at ``baseline − use``); infinity if they never do."""
    gain = baseline_bps - idle_use_bps
    if bucket_bits < 0:
        raise ValueError("the bucket cannot be negative")
    return math.inf if gain <= 0 else bucket_bits / gain
