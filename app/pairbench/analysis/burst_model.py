"""The online burst model: a throughput series fed one interval at a time, or a stored one.

``BurstModel.update`` takes one interval and answers a ``BurstEstimate``; ``analyze_series``
does the same over a whole stored series (the method is ``analysis.burst``'s).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from pairbench.analysis.burst import (
    LEARN_INTERVALS,
    BurstEstimate,
    BurstParams,
    BurstState,
    FloatArray,
    _fit,
    learnt_interval,
)
from pairbench.domain import Record


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
