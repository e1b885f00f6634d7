"""Samples (one value of one metric of one stream at one time), series and run summaries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


class Sample(NamedTuple):
    """One measured value.

    A NamedTuple rather than a dataclass: parsers make millions of these and the ingest
    path must reach 10^6 samples/s (see docs/ARCHITECTURE.md). ``t`` is seconds since the
    run's start at the end of the interval; ``stream`` is ``"sum"`` for the aggregate.
    """

    stream: str
    metric: str
    t: float
    value: float


@dataclass(frozen=True, slots=True)
class Series:
    """All samples of one (stream, metric) of a run, as parallel time and value sequences."""

    stream: str
    metric: str
    unit: str
    t: tuple[float, ...]
    v: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """What a tool reported for the whole run once it ended.

    ``complete`` is False when the output stopped before the tool's own summary (a killed
    tool, a cancelled run); ``values`` then holds what could be derived from the intervals.
    ``error`` carries the tool's own error message, if it printed one.
    """

    values: Mapping[str, float] = field(default_factory=dict)
    complete: bool = True
    error: str | None = None


def group_samples(samples: Iterable[Sample]) -> list[Series]:
    """Samples gathered into series, in order of first appearance ("sum" streams first)."""
    from pairbench.domain.metrics import metric_unit

    times: dict[tuple[str, str], list[float]] = {}
    values: dict[tuple[str, str], list[float]] = {}
    for stream, metric, t, value in samples:
        key = (stream, metric)
        if key not in times:
            times[key] = []
            values[key] = []
        times[key].append(t)
        values[key].append(value)
    keys = sorted(times, key=lambda k: k[0] != "sum")
    return [
        Series(
            stream,
            metric,
            metric_unit(metric),
            tuple(times[(stream, metric)]),
            tuple(values[(stream, metric)]),
        )
        for stream, metric in keys
    ]
