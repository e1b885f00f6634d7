"""Plain domain objects shared by every layer: hosts, pairs, run specs, runs, samples, metrics."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each name's module, imported when the name is first asked for (PEP 562): a command that
# lists runs needs ``Run`` but not hosts, lines, metrics or samples (CLI start time).
_MODULE_OF = {
    **dict.fromkeys(("LOCAL_HOST", "LOCAL_PAIR", "AuthMethod", "Host", "HostPair"), "hosts"),
    **dict.fromkeys(("Line", "LineSource"), "lines"),
    **dict.fromkeys(("METRICS", "Metric", "metric_unit"), "metrics"),
    **dict.fromkeys(("Run", "RunSpec", "RunStatus"), "runs"),
    **dict.fromkeys(
        ("Record", "Sample", "Series", "Summary", "expand", "group_records", "group_samples"),
        "samples",
    ),
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # asked once: later lookups find it here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))


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
