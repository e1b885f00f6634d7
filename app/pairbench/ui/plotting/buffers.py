"""One growable pair of numpy arrays per series: appends are amortised O(1) (capacity doubles)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

_MIN_CAPACITY = 256


class GrowableSeries:
    """Times and values of one series, appended as they arrive.

    ``t`` and ``v`` are views of the filled part; they stay valid after later appends (a
    reallocation leaves old views pointing at the old arrays, which numpy keeps alive).
    ``version`` increases with every change, so a view can tell whether it must redraw.
    """

    __slots__ = ("_t", "_v", "finite", "max_abs", "n", "version")

    def __init__(self, capacity: int = _MIN_CAPACITY) -> None:
        capacity = max(_MIN_CAPACITY, capacity)
        self._t: Array = np.empty(capacity, dtype=np.float64)
        self._v: Array = np.empty(capacity, dtype=np.float64)
        self.n = 0
        self.version = 0
        self.max_abs = 0.0  # of the finite values: what unit scaling looks at
        self.finite = True  # False once a NaN or infinity was appended

    @property
    def capacity(self) -> int:
        return len(self._t)

    @property
    def t(self) -> Array:
        return self._t[: self.n]

    @property
    def v(self) -> Array:
        return self._v[: self.n]

    def __len__(self) -> int:
        return self.n

    def _reserve(self, extra: int) -> None:
        needed = self.n + extra
        if needed <= len(self._t):
            return
        capacity = len(self._t)
        while capacity < needed:
            capacity *= 2
        for name in ("_t", "_v"):
            old = getattr(self, name)
            new = np.empty(capacity, dtype=np.float64)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)

    def append(self, t: float, v: float) -> None:
        """Add one sample."""
        if self.n == len(self._t):
            self._reserve(1)
        self._t[self.n] = t
        self._v[self.n] = v
        self.n += 1
        self.version += 1
        if v == v and abs(v) != float("inf"):  # finite without a function call
            if abs(v) > self.max_abs:
                self.max_abs = abs(v)
        else:
            self.finite = False

    def extend(self, t: Sequence[float] | Array, v: Sequence[float] | Array) -> None:
        """Add many samples at once (``t`` and ``v`` of equal length)."""
        ts = np.asarray(t, dtype=np.float64)
        vs = np.asarray(v, dtype=np.float64)
        if ts.shape != vs.shape or ts.ndim != 1:
            raise ValueError(f"t and v must be 1-D of equal length, got {ts.shape}, {vs.shape}")
        count = len(ts)
        if count == 0:
            return
        self._reserve(count)
        self._t[self.n : self.n + count] = ts
        self._v[self.n : self.n + count] = vs
        self.n += count
        self.version += 1
        finite = np.isfinite(vs)
        if finite.all():
            self.max_abs = max(self.max_abs, float(np.max(np.abs(vs))))
        else:
            self.finite = False
            if finite.any():
                self.max_abs = max(self.max_abs, float(np.max(np.abs(vs[finite]))))

    def value_at(self, t: float) -> tuple[float, float] | None:
        """The sample nearest to time ``t`` (by time), or None when empty."""
        if self.n == 0:
            return None
        times = self.t
        i = int(np.searchsorted(times, t))
        if i >= self.n:
            i = self.n - 1
        elif i > 0 and abs(times[i - 1] - t) <= abs(times[i] - t):
            i -= 1
        return float(times[i]), float(self._v[i])
