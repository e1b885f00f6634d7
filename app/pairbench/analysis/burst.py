"""Burst credits: an online model of a throughput series that runs at a burst rate until a
credit bucket drains, then at a baseline; and a calculator of what a workload can do with it.

The model (``BurstModel``) is fed one interval at a time (``update(t, throughput_bps)``, ``t``
the end of the interval in seconds since the run's start) and answers a ``BurstEstimate`` at
each step. Method, at every update over the whole (bounded) history:

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
costs a few O(n) numpy passes (~0.3 ms at n = 3,600).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from pairbench.domain import Record

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


@dataclass
class _History:
    """Growable arrays of interval ends, durations and values."""

    t: FloatArray = field(default_factory=lambda: np.empty(256))
    dt: FloatArray = field(default_factory=lambda: np.empty(256))
    v: FloatArray = field(default_factory=lambda: np.empty(256))
    n: int = 0

    def append(self, t: float, dt: float, v: float) -> None:
        if self.n == self.t.size:
            self.t, self.dt, self.v = (np.resize(a, 2 * a.size) for a in (self.t, self.dt, self.v))
        self.t[self.n], self.dt[self.n], self.v[self.n] = t, dt, v
        self.n += 1

    def halve(self) -> None:
        """Merge pairs of samples (an odd last sample stays as it is)."""
        pairs = self.n // 2
        odd = self.n % 2
        t = self.t[: 2 * pairs].reshape(pairs, 2)
        dt = self.dt[: 2 * pairs].reshape(pairs, 2)
        v = self.v[: 2 * pairs].reshape(pairs, 2)
        merged_dt = dt.sum(axis=1)
        merged_v = (v * dt).sum(axis=1) / merged_dt
        keep = slice(2 * pairs, self.n)
        self.t = np.concatenate([t[:, 1], self.t[keep], np.empty(pairs)])
        self.dt = np.concatenate([merged_dt, self.dt[keep], np.empty(pairs)])
        self.v = np.concatenate([merged_v, self.v[keep], np.empty(pairs)])
        self.n = pairs + odd


class BurstModel:
    """Online burst/baseline model; feed it intervals in time order with ``update``.

    ``start_t`` is when the run (and the burst) started, 0 for a series whose ``t`` counts
    from the run's start. Samples that are not finite, or not after the previous one, are
    ignored (the current estimate is returned).
    """

    def __init__(self, params: BurstParams | None = None, *, start_t: float = 0.0) -> None:
        self.params = params or BurstParams()
        # Default knobs follow the series' interval (``BurstParams.for_interval``), learnt
        # from its first intervals; given ones are kept as they are.
        self._learning = params is None
        self.start_t = float(start_t)
        self._history = _History()
        self._confirmed_at: float | None = None
        self._estimate = BurstEstimate(BurstState.NO_STEP, self.start_t, 0, start_t=self.start_t)

    @property
    def estimate(self) -> BurstEstimate:
        """The latest estimate."""
        return self._estimate

    @property
    def samples(self) -> int:
        """How many (possibly merged) samples the model holds."""
        return self._history.n

    def series(self) -> tuple[FloatArray, FloatArray]:
        """Copies of the (possibly merged) interval ends and values the model holds."""
        h = self._history
        return h.t[: h.n].copy(), h.v[: h.n].copy()

    def update(self, t: float, throughput_bps: float) -> BurstEstimate:
        """Add one interval (ending at ``t``) and return the new estimate."""
        if self._append(t, throughput_bps):
            self._refit()
        return self._estimate

    def _append(self, t: float, throughput_bps: float) -> bool:
        """Hold one more interval; False (and nothing held) for a repeated or bad one."""
        h = self._history
        last = h.t[h.n - 1] if h.n else self.start_t
        if not (math.isfinite(t) and math.isfinite(throughput_bps)) or t <= last:
            return False
        h.append(t, t - last, throughput_bps)
        if self._learning and h.n <= LEARN_INTERVALS:
            self.params = BurstParams().for_interval(learnt_interval(h.dt[: h.n]))
        if h.n >= self.params.max_samples:
            h.halve()
        return True

    def _refit(self) -> None:
        h = self._history
        keep = self._confirmed_at is not None
        estimate = _fit(h.t[: h.n], h.dt[: h.n], h.v[: h.n], self.params, self.start_t, keep)
        if estimate.state is BurstState.CONFIRMED:
            if self._confirmed_at is None:
                self._confirmed_at = estimate.t
            estimate = replace(estimate, confirmed_at=self._confirmed_at)
        else:
            self._confirmed_at = None
        self._estimate = estimate

    def update_records(
        self,
        records: Iterable[Record],
        *,
        stream: str = "sum",
        metric: str = "throughput_bps",
    ) -> BurstEstimate | None:
        """Feed the ``stream``/``metric`` values among ``records`` (one line's, from a
        parser or ``RunObserver.on_records``); the new estimate, or None if none matched.

        The records are fitted once, after the last of them (a fit costs ~0.3 ms: a batch of
        a minute of intervals, as a replay or a busy window delivers, is one fit, not sixty);
        fed one line at a time, as a live run does, this is the same as ``update`` each.
        """
        matched = False
        added = False
        for record in records:
            if record.stream != stream or metric not in record.metrics:
                continue
            matched = True
            added |= self._append(record.t, record.values[record.metrics.index(metric)])
        if added:
            self._refit()
        return self._estimate if matched else None


def analyze_series(
    t: npt.ArrayLike,
    v: npt.ArrayLike,
    *,
    params: BurstParams | None = None,
    start_t: float = 0.0,
) -> BurstEstimate:
    """The estimate for a whole stored series (``t`` interval ends, ``v`` throughput).

    The same as feeding every sample to a ``BurstModel`` (unless a confirmation there was
    withdrawn and made again): the whole series is fitted once, and ``confirmed_at`` is found
    by replaying only the prefixes that end after the step.
    """
    model = BurstModel(params, start_t=start_t)
    t_arr = np.asarray(t, dtype=np.float64)
    v_arr = np.asarray(v, dtype=np.float64)
    if t_arr.shape != v_arr.shape or t_arr.ndim != 1:
        raise ValueError("t and v must be one-dimensional and of the same length")
    ok = np.isfinite(t_arr) & np.isfinite(v_arr)
    t_arr, v_arr = t_arr[ok], v_arr[ok]
    if t_arr.size == 0:
        return model.estimate
    increasing = np.concatenate([[t_arr[0] > start_t], np.diff(t_arr) > 0])
    if not increasing.all():  # keep what ``update`` would keep: strictly after the previous
        keep = t_arr > np.maximum.accumulate(np.concatenate([[start_t], t_arr[:-1]]))
        t_arr, v_arr = t_arr[keep], v_arr[keep]
    dt = np.diff(np.concatenate([[start_t], t_arr]))
    if params is None:  # as the model learns it
        params = BurstParams().for_interval(learnt_interval(dt))
    if t_arr.size >= params.max_samples:  # merging depends on arrival: replay it exactly
        estimate = model.estimate
        for ti, vi in zip(t_arr.tolist(), v_arr.tolist(), strict=True):
            estimate = model.update(ti, vi)
        return estimate
    final = _fit(t_arr, dt, v_arr, params, start_t, keep=True)
    if final.state is not BurstState.CONFIRMED or final.step_t is None:
        return final
    # When would the online model have confirmed it (by the first-confirmation rule)?
    first = int(np.searchsorted(t_arr, final.step_t))
    for end in range(max(first, 1), t_arr.size + 1):
        trial = _fit(t_arr[:end], dt[:end], v_arr[:end], params, start_t)
        if trial.state is BurstState.CONFIRMED:
            return replace(final, confirmed_at=float(t_arr[end - 1]))
    return replace(final, state=BurstState.SUSPECTED)


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


@dataclass(frozen=True, slots=True)
class WorkloadFit:
    """Whether a workload fits a burst-credit link, and how long and how often it can burst.

    The workload runs at ``steady_bps`` and now and then needs ``need_bps``. Credits (bits)
    accrue at ``baseline − steady`` while steady and drain at ``need − baseline`` while
    bursting (the baseline keeps refilling during a burst). ``max_burst_s`` is the longest
    burst from a full bucket; ``refill_s`` the steady time that fills an empty one;
    ``period_s`` = one full burst plus its refill; ``duty_cycle`` the long-run share of time at
    ``need_bps``. With ``burst_length_s`` given, ``every_s`` is the shortest cycle of such bursts.
    """

    fits: bool
    reason: str
    baseline_bps: float
    burst_bps: float
    bucket_bits: float
    steady_bps: float
    need_bps: float
    refill_bps: float
    drain_bps: float
    max_burst_s: float
    refill_s: float
    period_s: float
    duty_cycle: float
    burst_seconds_per_hour: float
    burst_length_s: float | None = None
    every_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (infinity becomes null)."""
        return {k: _finite_or_none(v) for k, v in asdict(self).items()}


def workload_fit(
    *,
    baseline_bps: float,
    burst_bps: float,
    bucket_bits: float,
    steady_bps: float,
    need_bps: float,
    burst_length_s: float | None = None,
) -> WorkloadFit:
    """Will a workload (steady use plus bursts at ``need_bps``) fit this link's credits?"""
    for name, value in (
        ("baseline", baseline_bps),
        ("burst rate", burst_bps),
        ("bucket", bucket_bits),
        ("steady use", steady_bps),
        ("need", need_bps),
    ):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
    if burst_bps < baseline_bps:
        raise ValueError("the burst rate cannot be below the baseline")
    if burst_length_s is not None and not burst_length_s > 0:
        raise ValueError("the burst length must be positive")
    refill = baseline_bps - steady_bps
    drain = need_bps - baseline_bps
    max_burst = math.inf if drain <= 0 else bucket_bits / drain
    refill_s = refill_time_s(bucket_bits, baseline_bps, steady_bps)
    if drain <= 0:
        duty = 1.0
    elif refill <= 0:
        duty = 0.0
    else:
        duty = refill / (need_bps - steady_bps)
    every = None
    if burst_length_s is not None and drain > 0:
        every = math.inf if refill <= 0 else burst_length_s + burst_length_s * drain / refill
    fits, reason = _verdict(
        baseline_bps, burst_bps, steady_bps, need_bps, max_burst, refill_s, burst_length_s
    )
    return WorkloadFit(
        fits=fits,
        reason=reason,
        baseline_bps=baseline_bps,
        burst_bps=burst_bps,
        bucket_bits=bucket_bits,
        steady_bps=steady_bps,
        need_bps=need_bps,
        refill_bps=refill,
        drain_bps=max(drain, 0.0),
        max_burst_s=max_burst,
        refill_s=refill_s,
        period_s=max_burst + refill_s,
        duty_cycle=duty,
        burst_seconds_per_hour=duty * 3600,
        burst_length_s=burst_length_s,
        every_s=every,
    )


def _verdict(
    baseline: float,
    burst: float,
    steady: float,
    need: float,
    max_burst: float,
    refill_s: float,
    length: float | None,
) -> tuple[bool, str]:
    if need > burst:
        return False, "the need is above the burst rate: the link never goes that fast"
    if steady > baseline:
        return False, "the steady use is above the baseline: it drains the bucket by itself"
    if need <= baseline:
        return True, "the need is within the baseline: no credits are used"
    if steady == baseline:
        return False, (
            f"the steady use equals the baseline: credits never come back; a full bucket "
            f"gives one burst of {_secs(max_burst)}"
        )
    if length is not None and length > max_burst:
        return False, f"a {length:g} s burst needs more than a full bucket ({_secs(max_burst)})"
    return True, (
        f"bursts of up to {_secs(max_burst)} from a full bucket, which refills in "
        f"{_secs(refill_s)} at the steady use"
    )


def _secs(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.2g} s"


@dataclass(frozen=True, slots=True)
class BurstGroup:
    """Burst runs of one group (e.g. one instance type), like the field study's table.

    Rates are medians over the runs; ``bucket_bits`` and ``burst_seconds`` are the largest
    (a run can start with a full or a partly drained bucket, never with more than full).
    """

    group: str
    runs: tuple[int, ...]
    burst_bps: float
    baseline_bps: float
    bucket_bits: float
    burst_seconds: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["runs"] = list(self.runs)
        return data


def group_estimates(rows: Iterable[tuple[str, int, BurstEstimate]]) -> list[BurstGroup]:
    """(group, run id, estimate) rows → one ``BurstGroup`` per group, by group name; runs
    without a confirmed step are left out."""
    grouped: dict[str, list[tuple[int, BurstEstimate]]] = {}
    for group, run_id, estimate in rows:
        if estimate.detected:
            grouped.setdefault(group, []).append((run_id, estimate))
    out: list[BurstGroup] = []
    for group in sorted(grouped):
        members = grouped[group]
        out.append(
            BurstGroup(
                group=group,
                runs=tuple(run_id for run_id, _ in members),
                burst_bps=_median(e.burst_bps for _, e in members),
                baseline_bps=_median(e.baseline_bps for _, e in members),
                bucket_bits=max(e.bucket_bits or 0.0 for _, e in members),
                burst_seconds=max(e.burst_seconds or 0.0 for _, e in members),
            )
        )
    return out


def _median(values: Iterable[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return float(np.median(kept)) if kept else math.nan
