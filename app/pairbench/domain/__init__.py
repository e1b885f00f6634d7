"""Plain domain objects shared by every layer: hosts, pairs, run specs, runs, samples, metrics."""

from pairbench.domain.hosts import LOCAL_HOST, LOCAL_PAIR, AuthMethod, Host, HostPair
from pairbench.domain.lines import Line, LineSource
from pairbench.domain.metrics import METRICS, Metric, metric_unit
from pairbench.domain.runs import Run, RunSpec, RunStatus
from pairbench.domain.samples import (
    Record,
    Sample,
    Series,
    Summary,
    expand,
    group_records,
    group_samples,
)

__all__ = [
    "LOCAL_HOST",
    "LOCAL_PAIR",
    "METRICS",
    "AuthMethod",
    "Host",
    "HostPair",
    "Line",
    "LineSource",
    "Metric",
    "Record",
    "Run",
    "RunSpec",
    "RunStatus",
    "Sample",
    "Series",
    "Summary",
    "expand",
    "group_records",
    "group_samples",
    "metric_unit",
]
