"""Samples (one value of one metric of one stream at one time), records, series and summaries."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, NamedTuple


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


class Record(NamedTuple):
    """The values of several metrics of one stream at one time (one line of tool output).

    What parsers produce and the recorder stores: one tuple per line instead of one
    ``Sample`` per value keeps the ingest path above 10^6 samples/s (docs/ARCHITECTURE.md).
    ``values[i]`` is the value of ``metrics[i]``; parsers reuse one constant ``metrics``
    tuple per kind of line. ``samples()`` and ``expand()`` give the same data as Samples,
    the unit that consumers and exports speak.
    """

    stream: str
    t: float
    metrics: tuple[str, ...]
    values: tuple[float, ...]

    def samples(self) -> list[Sample]:
        """This record as one Sample per metric, in ``metrics`` order."""
        stream, t = self.stream, self.t
        return [Sample(stream, m, t, v) for m, v in zip(self.metrics, self.values, strict=True)]


# ``tuple.__new__(Record, ...)`` builds a real Record about twice as fast as ``Record(...)``
# (whose generated ``__new__`` is a Python function): the parsers' hot path uses it.
new_record: Final[
    Callable[[type[Record], tuple[str, float, tuple[str, ...], tuple[float, ...]]], Record]
] = tuple.__new__


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
    ``error`` carries the tool's own error message, if it printed one. ``form`` names the
    output form the parser read ("text", "json-stream", "terse v3", ...; "" when it did not
    tell). ``reason`` says why ``complete`` is False when the tool did end normally but its
    output form cannot carry a metric (fio's terse output has no per-interval figures, say):
    never a silent empty result.
    """

    values: Mapping[str, float] = field(default_factory=dict)
    complete: bool = True
    error: str | None = None
    form: str = ""
    reason: str | None = None


def expand(records: Iterable[Record]) -> list[Sample]:
    """The samples of ``records``, in order (each record's in its ``metrics`` order)."""
    out: list[Sample] = []
    for record in records:
        out += record.samples()
    return out


def group_records(records: Iterable[Record]) -> list[Series]:
    """Records gathered into series: the same series, in the same order, as
    ``group_samples(expand(records))``."""
    times: dict[tuple[str, str], list[float]] = {}
    values: dict[tuple[str, str], list[float]] = {}
    for stream, t, metrics, record_values in records:
        for metric, value in zip(metrics, record_values, strict=True):
            key = (stream, metric)
            if key not in times:
                times[key] = []
                values[key] = []
            times[key].append(t)
            values[key].append(value)
    return _series(times, values)


def group_samples(samples: Iterable[Sample]) -> list[Series]:
    """Samples gathered into series, in order of first appearance ("sum" streams first)."""
    times: dict[tuple[str, str], list[float]] = {}
    values: dict[tuple[str, str], list[float]] = {}
    for stream, metric, t, value in samples:
        key = (stream, metric)
        if key not in times:
            times[key] = []
            values[key] = []
        times[key].append(t)
        values[key].append(value)
    return _series(times, values)


def _series(
    times: dict[tuple[str, str], list[float]], values: dict[tuple[str, str], list[float]]
) -> list[Series]:
    """Series in order of first appearance, "sum" streams first (a stable sort)."""
    from pairbench.domain.metrics import metric_unit

    keys = sorted(times, key=lambda k: k[0] != "sum")
    return [
        Series(key[0], key[1], metric_unit(key[1]), tuple(times[key]), tuple(values[key]))
        for key in keys
    ]
