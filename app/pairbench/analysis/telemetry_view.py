"""A run's series seen as hosts: the tool's own series and each host's telemetry, on the
steady part of the run (pure numpy; what ``analysis/diagnosis.py`` reads).

The steady part leaves out the first interval (slow start, the samplers' first reading) and
whatever comes after the tool's last interval (the hosts idle again). A condition holds
"most of the run" when it holds in at least ``MOST`` of the steady samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from pairbench.analysis.compare_runs import SeriesLike
from pairbench.domain.telemetry import CPU, Role, core_of, split_stream

__all__ = ["MOST", "Picked", "RunView", "SeriesLike", "median_of", "most_common"]

FloatArray = npt.NDArray[np.float64]
MOST: Final = 0.6


@dataclass(frozen=True, slots=True)
class Picked:
    """One series cut to the steady part: times and values (NaN dropped)."""

    t: FloatArray
    v: FloatArray

    @property
    def empty(self) -> bool:
        return self.v.size == 0

    def median(self) -> float:
        return float(np.median(self.v)) if self.v.size else float("nan")

    def mean(self) -> float:
        return float(np.mean(self.v)) if self.v.size else float("nan")

    def share(self, condition: npt.NDArray[np.bool_]) -> float:
        """The share of samples where ``condition`` (over ``v``) holds."""
        return float(np.mean(condition)) if self.v.size else 0.0


class RunView:
    """The series of a run by (stream, metric), and the steady window."""

    def __init__(self, series: Sequence[SeriesLike], telemetry: Mapping[str, Any] | None) -> None:
        self.by_key = {(s.stream, s.metric): s for s in series}
        self.meta: Mapping[str, Any] = telemetry or {}
        self.window = self._steady_window(series)

    @staticmethod
    def _steady_window(series: Sequence[SeriesLike]) -> tuple[float, float]:
        tool_times = [
            np.asarray(s.t, dtype=float)
            for s in series
            if split_stream(s.stream) is None and len(s.t)
        ]
        if not tool_times:
            return (-np.inf, np.inf)
        times = np.unique(np.concatenate(tool_times))
        first, last = float(times[0]), float(times[-1])
        step = float(np.median(np.diff(times))) if times.size > 1 else first
        step = step if step > 0 else 1.0
        begin = first if times.size > 2 else first - step
        return (begin + step / 2, last + 0.6 * step)

    def host(self, role: Role) -> Mapping[str, Any]:
        """What the role's sampler said of its host (empty when it had none)."""
        hosts = self.meta.get("hosts") or {}
        found = hosts.get(role) if isinstance(hosts, Mapping) else None
        return found if isinstance(found, Mapping) else {}

    @property
    def shared_kernel(self) -> bool:
        """Both roles on one kernel (this computer, or a lab on one machine): their CPU
        figures are the same machine's."""
        return bool(self.meta.get("shared_kernel"))

    def has_telemetry(self) -> bool:
        return any(split_stream(stream) is not None for stream, _ in self.by_key)

    def pick(self, stream: str, metric: str, *, steady: bool = True) -> Picked:
        """A series' finite samples (in the steady window unless ``steady`` is False)."""
        s = self.by_key.get((stream, metric))
        if s is None:
            return Picked(np.empty(0), np.empty(0))
        t = np.asarray(s.t, dtype=float)
        v = np.asarray(s.v, dtype=float)
        keep = np.isfinite(v)
        if t.size > 2 and split_stream(stream) is not None:
            # A sampler's last sample is taken when it is stopped: a short, partial interval
            # after the tool's end (the host idle again), not one of the run's.
            gaps = np.diff(t)
            if gaps[-1] < 0.5 * float(np.median(gaps)):
                keep[-1] = False
        if steady:
            begin, end = self.window
            keep &= (t > begin) & (t <= end)
        return Picked(t[keep], v[keep])

    def tool(self, metric: str) -> Picked:
        """The tool's own series of ``metric`` (its "sum" stream, else its first stream)."""
        for stream in ("sum", *sorted(s for s, m in self.by_key if m == metric)):
            if split_stream(stream) is None and (stream, metric) in self.by_key:
                return self.pick(stream, metric)
        return Picked(np.empty(0), np.empty(0))

    def cores(self, role: Role) -> list[int]:
        """The core numbers with a stored series on the role's host."""
        found = []
        for stream, metric in self.by_key:
            split = split_stream(stream)
            if split is not None and split[0] == role and metric == "cpu_busy_percent":
                core = core_of(split[1])
                if core is not None:
                    found.append(core)
        return sorted(found)

    def busiest_core(self, role: Role) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        """Per steady sample: the busiest core's busy %, its softirq + irq %, and its number."""
        cores = self.cores(role)
        if not cores:
            return None
        busy = [self.pick(f"{role}:{CPU}{c}", "cpu_busy_percent") for c in cores]
        soft = [self.pick(f"{role}:{CPU}{c}", "cpu_softirq_percent") for c in cores]
        irq = [self.pick(f"{role}:{CPU}{c}", "cpu_irq_percent") for c in cores]
        n = min(p.v.size for p in (*busy, *soft, *irq))
        if n == 0:
            return None
        matrix = np.vstack([p.v[:n] for p in busy])
        kernel = np.vstack([s.v[:n] + i.v[:n] for s, i in zip(soft, irq, strict=True)])
        which = np.argmax(matrix, axis=0)
        columns = np.arange(n)
        return (
            matrix[which, columns],
            kernel[which, columns],
            np.asarray(cores, dtype=float)[which],
        )


def median_of(values: FloatArray) -> float:
    """The median of the finite values (NaN when none)."""
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if finite.size else float("nan")


def most_common(values: FloatArray) -> int:
    """The value seen most often (a core number)."""
    numbers, counts = np.unique(values.astype(int), return_counts=True)
    return int(numbers[int(np.argmax(counts))])
