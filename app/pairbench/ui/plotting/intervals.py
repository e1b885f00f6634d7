"""Interval timing for plots (Qt-free): how far to draw the streams, and partial last intervals.

Two rules every plot of a run follows, whatever the tool:

- **Streams wait for their total.** A tool may print an interval's per-stream lines before its
  aggregate ("sum") line (iperf3's text prints ``[SUM]`` last), so a redraw between them drew
  the streams one interval ahead of the total. ``stream_horizon`` gives the latest time the
  per-stream curves may be drawn to: the newest aggregate interval, unless the aggregate has
  gone quiet (then the streams are not held back at all).
- **A partial last interval is not a dip.** iperf3 ends with a short interval (``10.00-10.04``):
  its rate or count is not comparable with the full ones. Records do not carry the interval's
  length, so ``partial_last`` judges it by the spacing of the samples: a last spacing under
  ``PARTIAL_FRACTION`` of the usual one is partial.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

import numpy as np
import numpy.typing as npt

PARTIAL_FRACTION = 0.8  # a last interval shorter than this share of the usual one is partial
SPACINGS_LOOKED_AT = 16  # the usual spacing: the median of the last spacings before the end
QUIET_INTERVALS = 1.5  # the aggregate this many intervals behind the streams: stop waiting
TIME_TOLERANCE = 1e-6  # seconds: the same interval's end time, printed twice


def is_aggregate(stream: str) -> bool:
    """True for the totals ("sum", "sum_reverse"...), drawn over the per-stream curves."""
    return stream.startswith("sum")


def usual_spacing(t: npt.NDArray[np.float64]) -> float | None:
    """The median spacing of ``t`` before its last sample (None with fewer than 3 samples)."""
    if len(t) < 3:
        return None
    before = t[max(0, len(t) - 1 - SPACINGS_LOOKED_AT) : len(t) - 1]
    spacing = float(np.median(np.diff(before)))
    return spacing if spacing > 0 else None


def partial_last(t: npt.NDArray[np.float64]) -> float | None:
    """The length of the last interval of ``t`` if it is partial, else None."""
    usual = usual_spacing(t)
    if usual is None:
        return None
    last = float(t[-1] - t[-2])
    return last if 0 < last < PARTIAL_FRACTION * usual else None


def stream_horizon(
    aggregate_times: Iterable[npt.NDArray[np.float64]], newest_stream_t: float | None
) -> float | None:
    """The latest time per-stream curves may be drawn to, or None: draw all they have.

    ``aggregate_times`` are the times of the aggregate series; ``newest_stream_t`` the latest
    time of any per-stream series. The horizon is the newest aggregate time; it does not apply
    when no aggregate arrived yet, or when the streams are more than ``QUIET_INTERVALS``
    intervals ahead of it (an aggregate that stopped must not freeze the streams).
    """
    newest = None
    spacing = None
    for t in aggregate_times:
        if len(t) == 0:
            continue
        last = float(t[-1])
        if newest is None or last > newest:
            newest = last
            spacing = float(t[-1] - t[-2]) if len(t) >= 2 else last
    if newest is None or newest_stream_t is None or newest_stream_t <= newest:
        return None
    if spacing is not None and spacing > 0 and newest_stream_t - newest > QUIET_INTERVALS * spacing:
        return None
    return newest + TIME_TOLERANCE


class _Timed(Protocol):
    @property
    def t(self) -> npt.NDArray[np.float64]: ...


def run_horizon(series: Mapping[tuple[str, str], _Timed]) -> float | None:
    """``stream_horizon`` of a run's buffers, keyed by (stream, metric)."""
    totals = [s.t for (stream, _m), s in series.items() if is_aggregate(stream)]
    if not totals:
        return None
    newest = max(
        (
            float(s.t[-1])
            for (stream, _m), s in series.items()
            if len(s.t) and not is_aggregate(stream)
        ),
        default=None,
    )
    return stream_horizon(totals, newest)


def drawn_count(t: npt.NDArray[np.float64], horizon: float | None) -> int:
    """How many samples of ``t`` (sorted) lie at or before ``horizon`` (all when None)."""
    if horizon is None or len(t) == 0 or t[-1] <= horizon:
        return len(t)
    return int(np.searchsorted(t, horizon, side="right"))
