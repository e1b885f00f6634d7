"""The runs a comparison reads: its inputs, how they are grouped, each run's value of a metric.

A run's value is its stored summary's, else the mean of its series; the metric compared when
none is chosen is the first every run has.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from pairbench.analysis.stats import (
    FloatArray,
)
from pairbench.domain import METRICS, HostPair, Metric, Run, metric_unit
from pairbench.domain.diagnosis import Diagnosis

# The metrics a comparison table shows when the runs have them, in the field reports' order.
TABLE_METRICS = (
    "latency_avg_us",
    "rtt_avg_ms",
    "throughput_bps",
    "jitter_ms",
    "lost_percent",
    "retransmits",
    "ops_per_s",
    "read_iops",
    "write_iops",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_lat_mean_us",
    "write_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_p99_us",
)


# The metric compared when none is chosen: the first that every run has.
PREFERRED_METRICS = (
    "throughput_bps",
    "latency_avg_us",
    "rtt_avg_ms",
    "read_iops",
    "write_iops",
    "ops_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "jitter_ms",
    "lost_percent",
)


class CompareError(ValueError):
    """The comparison cannot be made as asked (no runs, unknown metric or baseline, ...)."""


class SeriesLike(Protocol):
    """A series with numpy arrays (``library.series.SeriesArrays`` is one)."""

    @property
    def stream(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def t(self) -> FloatArray: ...
    @property
    def v(self) -> FloatArray: ...


@dataclass(frozen=True, slots=True)
class RunInput:
    """One run to compare: the stored run, its pair (None if since removed), its series, and
    who ran it when known (a comparison with team runs)."""

    run: Run
    pair: HostPair | None = None
    series: Sequence[SeriesLike] = ()
    ran_by: str = ""
    diagnosis: Diagnosis | None = None  # what limited the run, when it has a stored verdict
    # The run's tool's parameter defaults (name → text), when the caller knows them: a
    # parameter not recorded then reads as its default in the metadata diff.
    param_defaults: Mapping[str, str] = field(default_factory=dict)


class GroupKind(enum.StrEnum):
    """What makes runs one group."""

    RUN = "run"  # every run on its own
    TAG = "tag"
    LABEL = "label"
    PAIR = "pair"
    RAN_BY = "ran_by"  # who ran each run (a comparison with team runs)


@dataclass(frozen=True, slots=True)
class GroupBy:
    """A grouping: ``run``, ``label``, ``pair``, ``ran_by`` or ``tag:KEY``."""

    kind: GroupKind = GroupKind.RUN
    key: str = ""

    @classmethod
    def parse(cls, text: str) -> GroupBy:
        """``run``, ``label``, ``pair``, ``ran_by`` or ``tag:KEY``."""
        name, sep, key = text.strip().partition(":")
        try:
            kind = GroupKind(name.lower())
        except ValueError:
            raise CompareError(
                f"unknown grouping {text!r}: use run, label, pair, ran_by or tag:KEY"
            ) from None
        if kind is GroupKind.TAG and not key:
            raise CompareError("group by tag needs its key: tag:KEY (e.g. tag:zone)")
        if kind is not GroupKind.TAG and sep:
            raise CompareError(f"grouping {name!r} takes no key")
        return cls(kind, key)

    def __str__(self) -> str:
        return f"tag:{self.key}" if self.kind is GroupKind.TAG else self.kind.value

    def name_of(self, item: RunInput) -> str:
        """The group a run belongs to."""
        run = item.run
        if self.kind is GroupKind.RUN:
            return run_name(run)
        if self.kind is GroupKind.LABEL:
            return run.label or "(no label)"
        if self.kind is GroupKind.PAIR:
            return run.spec.pair
        if self.kind is GroupKind.RAN_BY:
            return item.ran_by or "(unknown)"
        return tag_value(item, self.key) or f"(no {self.key})"


def run_name(run: Run) -> str:
    """``#ID label`` (or ``#ID`` for an unlabelled run)."""
    return f"#{run.id} {run.label}" if run.label else f"#{run.id}"


def tag_value(item: RunInput, key: str) -> str | None:
    """A tag of the run, else of its pair, else of the pair's client host."""
    if key in item.run.tags:
        return item.run.tags[key]
    if item.pair is not None:
        if key in item.pair.tags:
            return item.pair.tags[key]
        if key in item.pair.client.tags:
            return item.pair.client.tags[key]
    return None


def metric_info(name: str) -> Metric:
    """The metric's unit and label (unknown names: their own name, no unit)."""
    return METRICS.get(name) or Metric(name, metric_unit(name), name)


def lower_is_better(metric: str) -> bool:
    """True for latencies, jitter, loss and retransmits (a storage report's latency
    columns too)."""
    if metric.startswith("latency_") and metric.endswith(("_mean", "_max")):
        return True
    return metric.endswith(("_us", "_ms", "_percent")) or metric in (
        "retransmits",
        "lost_packets",
    )


def pick_series(item: RunInput, metric: str) -> SeriesLike | None:
    """The run's series of ``metric``: the "sum" stream, else the first stream that has it."""
    candidates = [s for s in item.series if s.metric == metric]
    for s in candidates:
        if s.stream == "sum":
            return s
    return candidates[0] if candidates else None


def run_value(item: RunInput, metric: str) -> tuple[float | None, str]:
    """The run's value of ``metric`` and where it came from ("summary", "series mean")."""
    value = item.run.summary.get(metric)
    if value is not None and math.isfinite(value):
        return float(value), "summary"
    series = pick_series(item, metric)
    if series is not None and len(series.v):
        finite = series.v[np.isfinite(series.v)]
        if finite.size:
            return float(np.mean(finite)), "series mean"
    return None, ""


def default_metric(items: Sequence[RunInput]) -> str:
    """The metric to compare when none is chosen: the first every run has, in a fixed order."""
    if not items:
        raise CompareError("no runs to compare")
    have = [_metrics_of(item) for item in items]
    common = set.intersection(*have)
    anywhere = set.union(*have)
    for pool in (common, anywhere):
        for name in PREFERRED_METRICS:
            if name in pool:
                return name
        if pool:
            return sorted(pool)[0]
    raise CompareError("the runs have no summary values or series to compare")


def _metrics_of(item: RunInput) -> set[str]:
    names = {k for k, v in item.run.summary.items() if math.isfinite(v)}
    return names | {s.metric for s in item.series}
