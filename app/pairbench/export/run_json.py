"""The JSON shape of a parsed or stored run (DESIGN §4: ``parse`` and ``runs show --json``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pairbench.domain import Run, Series


def _number(value: float) -> float | None:
    """JSON has no NaN or infinity: those become null."""
    return value if math.isfinite(value) else None


def series_payload(series: Iterable[Series]) -> list[dict[str, Any]]:
    """Series as ``{"stream", "metric", "unit", "t": [...], "v": [...]}`` objects."""
    return [
        {
            "stream": s.stream,
            "metric": s.metric,
            "unit": s.unit,
            "t": [_number(x) for x in s.t],
            "v": [_number(x) for x in s.v],
        }
        for s in series
    ]


def parse_payload(
    tool: str,
    summary: Mapping[str, float],
    series: Iterable[Series],
    *,
    complete: bool = True,
    error: str | None = None,
) -> dict[str, Any]:
    """What ``pairbench parse`` prints."""
    payload: dict[str, Any] = {
        "tool": tool,
        "summary": {k: _number(v) for k, v in summary.items()},
        "series": series_payload(series),
        "complete": complete,
    }
    if error:
        payload["error"] = error
    return payload


def run_fields(run: Run) -> dict[str, Any]:
    """A stored run's own fields (without series)."""
    return {
        "id": run.id,
        "pair": run.spec.pair,
        "tool": run.spec.tool,
        "tool_version": run.tool_version,
        "params": dict(run.spec.params),
        "status": run.status.value,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "label": run.label,
        "tags": dict(run.tags),
        "notes": run.notes,
        "error": run.error,
        "summary": {k: _number(v) for k, v in run.summary.items()},
        "summary_complete": run.summary_complete,
        "host_facts": {k: dict(v) for k, v in run.host_facts.items()},
    }


def run_payload(run: Run, series: Iterable[Series]) -> dict[str, Any]:
    """What ``pairbench runs show ID --json`` prints: the run's fields plus its series."""
    payload = run_fields(run)
    payload["series"] = series_payload(series)
    return payload
