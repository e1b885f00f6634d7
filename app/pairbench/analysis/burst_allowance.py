"""A burst step seen by the NIC itself: the cloud's allowance counters (AWS ENA's
``bw_in_allowance_exceeded`` / ``bw_out_allowance_exceeded``) starting to rise.

Throughput alone only suggests a credit bucket (``analysis/burst.py``): a step from the burst
rate to a baseline. When the instance's NIC counts the packets it shaped because the
bandwidth allowance was exceeded, the counter's onset — the first interval it rises after
staying flat, and keeps rising in the next one — coinciding with the step (within
``ONSET_TOLERANCE_S`` or two intervals) confirms that the step is the burst allowance
running out, not a neighbour, a path change or a stall. ``AllowanceWatch`` finds the onsets
from live telemetry records; ``onsets_of`` from stored series.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from pairbench.analysis.telemetry_view import SeriesLike
from pairbench.domain import Record
from pairbench.domain.telemetry import ALLOWANCE_MEANING, split_stream

# The allowances a throughput step can be (pps and conntrack are other limits).
BANDWIDTH_COUNTERS: Final = ("bw_in_allowance_exceeded", "bw_out_allowance_exceeded")
ONSET_TOLERANCE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class AllowanceOnset:
    """When a host's allowance counter started rising (``t`` on the run's axis)."""

    role: str
    counter: str
    t: float

    def sentence(self, step_t: float) -> str:
        """How the confirmation reads in a panel or ``analyze burst``."""
        return (
            f"{self.counter} on the {self.role} started rising at {self.t:.1f} s (the step at "
            f"{step_t:.1f} s): {ALLOWANCE_MEANING[self.counter]} ran out, a burst allowance, "
            "confirmed"
        )


def _counter(metric: str) -> str | None:
    for counter in BANDWIDTH_COUNTERS:
        if metric == f"ethtool_{counter}_pps":
            return counter
    return None


def onset(t: Sequence[float], v: Sequence[float]) -> float | None:
    """The end of the first interval in which the rate rose after one where it did not, and
    kept rising in the next; None when it never did (or rose from the first interval on)."""
    values = np.nan_to_num(np.asarray(v, dtype=float))
    flat_seen = False
    for i, value in enumerate(values):
        if value <= 0:
            flat_seen = True
        elif flat_seen and (i + 1 == len(values) or values[i + 1] > 0):
            return float(t[i])
    return None


def onsets_of(series: Iterable[SeriesLike]) -> list[AllowanceOnset]:
    """The bandwidth allowance counters' onsets in a run's stored telemetry."""
    found = []
    for s in series:
        split = split_stream(s.stream)
        counter = _counter(s.metric)
        if split is None or split[1] != "nic" or counter is None:
            continue
        at = onset(list(s.t), list(s.v))
        if at is not None:
            found.append(AllowanceOnset(split[0], counter, at))
    return found


def confirming(
    step_t: float | None, onsets: Iterable[AllowanceOnset], interval_s: float = 1.0
) -> AllowanceOnset | None:
    """The onset that confirms a step at ``step_t``: the nearest within the tolerance."""
    if step_t is None:
        return None
    tolerance = max(ONSET_TOLERANCE_S, 2 * interval_s)
    near = [o for o in onsets if abs(o.t - step_t) <= tolerance]
    return min(near, key=lambda o: abs(o.t - step_t)) if near else None


class AllowanceWatch:
    """Onsets of the bandwidth allowance counters, found as telemetry records arrive."""

    def __init__(self) -> None:
        self.onsets: list[AllowanceOnset] = []
        self.present: set[tuple[str, str]] = set()  # (role, counter) the NIC has
        self._rising: dict[tuple[str, str], float] = {}  # first rise, awaiting the next
        self._flat: set[tuple[str, str]] = set()
        self._done: set[tuple[str, str]] = set()

    def feed(self, records: Iterable[Record]) -> None:
        """Look at telemetry records (others are ignored)."""
        for stream, t, metrics, values in records:
            split = split_stream(stream)
            if split is None or split[1] != "nic":
                continue
            for metric, value in zip(metrics, values, strict=True):
                counter = _counter(metric)
                if counter is None:
                    continue
                key = (split[0], counter)
                self.present.add(key)
                self._step(key, t, value)

    def _step(self, key: tuple[str, str], t: float, value: float) -> None:
        if key in self._done:
            return
        if not value > 0:
            self._flat.add(key)
            self._rising.pop(key, None)
        elif key in self._rising:
            self.onsets.append(AllowanceOnset(key[0], key[1], self._rising.pop(key)))
            self._done.add(key)
        elif key in self._flat:
            self._rising[key] = t
