"""The JSON shape of a comparison (``pairbench compare --json``)."""

from __future__ import annotations

import math
from typing import Any

from pairbench.analysis.compare import Comparison, GroupResult
from pairbench.analysis.stats import Difference, GroupStats, Interval


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _interval(ci: Interval | None) -> list[float | None] | None:
    return None if ci is None else [_num(ci.low), _num(ci.high)]


def stats_payload(st: GroupStats | None) -> dict[str, Any] | None:
    """n, mean, median, stddev, cv, ci [low, high], min, max, note."""
    if st is None:
        return None
    return {
        "n": st.n,
        "mean": _num(st.mean),
        "median": _num(st.median),
        "stddev": _num(st.stddev),
        "cv": _num(st.cv),
        "ci": _interval(st.ci),
        "min": _num(st.minimum),
        "max": _num(st.maximum),
        "note": st.note,
    }


def difference_payload(d: Difference | None) -> dict[str, Any] | None:
    """A group against the baseline: difference, relative, ci, t, df, p_value, note."""
    if d is None:
        return None
    return {
        "difference": _num(d.difference),
        "relative": _num(d.relative),
        "ci": _interval(d.ci),
        "t": _num(d.t),
        "df": _num(d.df),
        "p_value": _num(d.p_value),
        "note": d.note,
    }


def _group(cmp: Comparison, g: GroupResult) -> dict[str, Any]:
    return {
        "name": g.name,
        "description": g.description,
        "runs": list(g.run_ids),
        "values": [{"run_id": v.run_id, "value": v.value, "source": v.source} for v in g.values],
        "discarded": [
            {"run_id": d.run_id, "value": d.value, "reason": d.reason} for d in g.discarded
        ],
        "outlier_note": g.outliers.note if g.outliers else "",
        "missing": list(g.missing),
        "stats": stats_payload(g.stats),
        "vs_baseline": difference_payload(cmp.differences.get(g.name)),
    }


def comparison_payload(cmp: Comparison) -> dict[str, Any]:
    """Everything the terminal report shows, as plain JSON values."""
    table = cmp.table
    return {
        "metric": {"name": cmp.metric.name, "unit": cmp.metric.unit, "label": cmp.metric.label},
        "group_by": str(cmp.group_by),
        "outliers": str(cmp.policy),
        "confidence": cmp.confidence,
        "baseline": cmp.baseline,
        "groups": [_group(cmp, g) for g in cmp.groups],
        "table": {
            "columns": [
                {"metric": c.metric, "label": c.label, "unit": c.unit} for c in table.columns
            ],
            "rows": [
                {
                    "group": row.group,
                    "description": row.description,
                    "n": row.n,
                    "baseline": row.is_baseline,
                    "limited_by": row.limited_by or None,
                    "cells": {
                        column.metric: {
                            "n": cell.n,
                            "mean": _num(cell.mean),
                            "ci_half_width": _num(cell.half_width),
                            "vs_baseline": _num(cell.vs_baseline),
                        }
                        for column, cell in zip(table.columns, row.cells, strict=True)
                    },
                }
                for row in table.rows
            ],
        },
        "diff": {
            "runs": list(cmp.diff.run_ids),
            "groups": list(cmp.diff.groups),
            "fields": [{"field": r.field, "values": list(r.values)} for r in cmp.diff.rows],
            "same": cmp.diff.same,
            "hidden": cmp.diff.hidden,
        },
        "warnings": list(cmp.warnings),
    }
