"""A comparison's table, like the field reports' conclusions: a row per group, a column per metric.

Each cell is the mean of the group's kept runs with its CI and its difference from the
baseline row; at most ``MAX_TABLE_COLUMNS`` metrics, the field reports' order first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pairbench.analysis.compare_runs import (
    TABLE_METRICS,
    RunInput,
    metric_info,
    run_value,
)
from pairbench.analysis.stats import (
    DEFAULT_CONFIDENCE,
    describe,
)
from pairbench.analysis.verdicts import limited_by

if TYPE_CHECKING:
    from pairbench.analysis.compare import GroupResult


MAX_TABLE_COLUMNS = 6


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A metric column of the comparison table."""

    metric: str
    label: str
    unit: str


@dataclass(frozen=True, slots=True)
class TableCell:
    """The mean of a group's kept runs for one metric, its CI and the change from baseline."""

    n: int = 0
    mean: float | None = None
    half_width: float | None = None  # of the 95 % CI; None for n < 2
    vs_baseline: float | None = None  # (mean − baseline mean) / baseline mean


@dataclass(frozen=True, slots=True)
class TableRow:
    """One group as a row: environment (the group), test description, n, cells."""

    group: str
    description: str
    n: int
    cells: tuple[TableCell, ...]
    is_baseline: bool = False
    limited_by: str = ""  # the kept runs' verdicts: "cpu (client)", "network ×2, rate ×1"


@dataclass(frozen=True, slots=True)
class ComparisonTable:
    """Rows of groups, columns of metrics, with a baseline row."""

    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]
    baseline: str | None
    confidence: float = DEFAULT_CONFIDENCE


def table_metrics(items: Iterable[RunInput], primary: str) -> list[str]:
    """The table's metric columns: those of ``TABLE_METRICS`` the runs have, and the primary."""
    have: set[str] = set()
    for item in items:
        have |= {k for k, v in item.run.summary.items() if math.isfinite(v)}
    chosen = [m for m in TABLE_METRICS if m in have or m == primary]
    if primary not in chosen:
        chosen.insert(0, primary)
    if len(chosen) > MAX_TABLE_COLUMNS:
        others = [m for m in chosen if m != primary][: MAX_TABLE_COLUMNS - 1]
        chosen = [m for m in chosen if m == primary or m in others]
    return chosen


def comparison_table(
    grouped: Sequence[tuple[str, list[RunInput]]],
    groups: Sequence[GroupResult],
    primary: str,
    baseline: str | None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ComparisonTable:
    """One row per group over its kept runs; one column per applicable metric."""
    items = [item for _, members in grouped for item in members]
    metrics = table_metrics(items, primary)
    columns = tuple(TableColumn(m, metric_info(m).label, metric_info(m).unit) for m in metrics)
    means: dict[tuple[str, str], TableCell] = {}
    rows_data: list[tuple[GroupResult, list[RunInput]]] = []
    for (_, members), result in zip(grouped, groups, strict=True):
        gone = {d.run_id for d in result.discarded}
        kept = [m for m in members if m.run.id not in gone]
        rows_data.append((result, kept))
        for metric in metrics:
            values = [v for v in (run_value(m, metric)[0] for m in kept) if v is not None]
            if not values:
                means[(result.name, metric)] = TableCell()
                continue
            st = describe(values, confidence=confidence)
            half = st.ci.half_width if st.ci is not None else None
            means[(result.name, metric)] = TableCell(st.n, st.mean, half)
    rows: list[TableRow] = []
    for result, kept in rows_data:
        cells = []
        for metric in metrics:
            cell = means[(result.name, metric)]
            base = means.get((baseline, metric)) if baseline is not None else None
            vs = None
            if cell.mean is not None and base is not None and base.mean:
                vs = (cell.mean - base.mean) / base.mean
            cells.append(TableCell(cell.n, cell.mean, cell.half_width, vs))
        rows.append(
            TableRow(
                result.name,
                result.description,
                len(kept),
                tuple(cells),
                is_baseline=result.name == baseline,
                limited_by=limited_by(m.diagnosis for m in kept),
            )
        )
    return ComparisonTable(columns, tuple(rows), baseline, confidence)
