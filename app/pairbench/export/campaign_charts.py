"""A campaign report's charts, without Qt: per test column, each group's mean with its 95 %
CI whiskers (dots: the kept runs, ×: the discarded ones), and for a scheduled campaign the
metric against the hour of day (or minute, when the runs span under 2 h) with a CI per bin,
one colour per group."""

from __future__ import annotations

import re

from pairbench.domain.metrics import METRICS, metric_unit
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import Scale, axis_label, range_scale
from pairbench.export.campaign_data import PAIR, Column, ReportModel, TimeOfDay
from pairbench.export.campaign_tables import column_scale, group_heading
from pairbench.export.charts import PALETTE, ChartKind, ChartSpec, SummaryPoint
from pairbench.export.panels import Panel, Series, padded
from pairbench.export.storage_charts import NamedChart

MAX_TICKS = 24
DISCARD_COLOR = "#444444"


def metric_label(metric: str) -> str:
    """A metric's words ("Throughput"), else its name."""
    known = METRICS.get(metric)
    return known.label if known is not None else metric


def group_color(model: ReportModel, group: str) -> str:
    return PALETTE[model.groups.index(group) % len(PALETTE)]


def footer(model: ReportModel) -> str:
    d = model.data
    when = time_text(d.created_at, "%Y-%m-%d %H:%M")
    return (
        f"Campaign #{d.id} {d.name} · {when} · schedule {d.schedule} · {d.repeats} · "
        f"outliers {d.outliers} · Pairbench"
    )


def _grouping(model: ReportModel) -> str:
    return "pair" if model.data.group_by == PAIR else group_heading(model).lower()


def group_chart(model: ReportModel, column: Column) -> ChartSpec:
    """Each group's mean in ``column`` with its CI whiskers, kept runs as dots, discarded
    runs as crosses (the comparison's summary chart)."""
    scale = column_scale(model, column)
    f = scale.factor
    points = []
    for group in model.groups:
        gc = model.cell(group, column)
        st = gc.stats
        if st is None:
            continue
        points.append(
            SummaryPoint(
                label=group,
                color=group_color(model, group),
                mean=st.mean * f,
                low=st.ci.low * f if st.ci is not None else None,
                high=st.ci.high * f if st.ci is not None else None,
                values=tuple(r.value * f for r in gc.kept),
                discarded=tuple(r.value * f for r in gc.discarded),
            )
        )
    summary = f"Mean per {_grouping(model)} with 95 % CI (Student t); dots: runs"
    if any(model.cell(g, column).discarded for g in model.groups):
        summary += f"; ×: discarded ({model.data.outliers})"
    return ChartSpec(
        kind=ChartKind.SUMMARY,
        title=f"{column.name}: {axis_label(metric_label(column.metric), scale)} "
        f"per {_grouping(model)}",
        footer=footer(model),
        x_label="",
        y_label=axis_label(metric_label(column.metric), scale),
        points=tuple(points),
        summary_title=summary,
        width=min(2400, max(900, 300 + 110 * len(points))),
        height=620,
    )


def _x(tod: TimeOfDay, key: int) -> float:
    return float(key - tod.first_key) if tod.minute else float(key)


def _offset(model: ReportModel, tod: TimeOfDay, group: str) -> float:
    """Groups side by side within a bin, so their whiskers do not overlap."""
    names = [g.group for g in tod.groups]
    k, n = names.index(group), len(names)
    step = min(0.18, 0.6 / n)
    return (k - (n - 1) / 2) * step


def _time_scale(tod: TimeOfDay) -> Scale:
    means = [b.stats.mean for g in tod.groups for b in g.bins]
    return range_scale(metric_unit(tod.column.metric), means)


def time_panel(model: ReportModel, tod: TimeOfDay) -> Panel:
    """The column's mean per bin with CI whiskers, one colour per group."""
    scale = _time_scale(tod)
    f = scale.factor
    series: list[Series] = []
    labels: dict[float, str] = {}
    for g in tod.groups:
        color = group_color(model, g.group)
        dx = _offset(model, tod, g.group)
        xs = tuple(_x(tod, b.key) + dx for b in g.bins)
        for b in g.bins:
            labels[_x(tod, b.key)] = b.label
        means = tuple(b.stats.mean * f for b in g.bins)
        series.append(Series(g.group, color, xs, means, symbol="o"))
        for x, b in zip(xs, g.bins, strict=True):
            ci = b.stats.ci
            if ci is not None:
                series.append(Series(None, color, (x, x), (ci.low * f, ci.high * f), symbol=None))
        dots = [(x, v * f) for x, b in zip(xs, g.bins, strict=True) for v in b.values]
        if dots:
            series.append(
                Series(
                    None,
                    color + "80",
                    tuple(x for x, _ in dots),
                    tuple(v for _, v in dots),
                    symbol="o",
                    line=False,
                )
            )
        if g.discarded:
            series.append(
                Series(
                    None,
                    color,
                    tuple(_x(tod, k) + dx for k, _ in g.discarded),
                    tuple(v * f for _, v in g.discarded),
                    symbol="x",
                    line=False,
                )
            )
    if any(g.discarded for g in tod.groups):
        series.append(Series("× discarded", DISCARD_COLOR, (), (), symbol="x", line=False))
    keys = sorted(labels)
    step = max(1, -(-len(keys) // MAX_TICKS))
    ticks = tuple((x, labels[x]) for x in keys[::step])
    x_label = "Minute (local time)" if tod.minute else "Hour of day (local time)"
    return Panel(
        title="",
        x_label=x_label,
        y_label=axis_label(metric_label(tod.column.metric), scale),
        series=tuple(series),
        x_ticks=ticks,
        x_range=padded(keys[0] - 0.5, keys[-1] + 0.5, log=False, pad=0.02) if keys else None,
        note="Mean per bin with its 95 % CI (Student t) as a vertical bar; dots: runs.",
        empty_text="no run yet",
    )


def time_chart(model: ReportModel, tod: TimeOfDay) -> ChartSpec:
    """The time-of-day chart of one column."""
    scale = _time_scale(tod)
    what = axis_label(metric_label(tod.column.metric), scale)
    if tod.minute:
        how = "by minute (the runs span under 2 hours, so minutes rather than hours of day)"
    else:
        how = "by hour of day (local time)"
    return ChartSpec(
        kind=ChartKind.SUMMARY,
        title=f"{tod.column.name}: {what} {how}",
        footer=footer(model),
        x_label="",
        y_label="",
        panels=(time_panel(model, tod),),
        columns=1,
        width=1300,
        height=680,
    )


def slug(text: str) -> str:
    """A file stem from a column's name: ``iperf3-streams-4``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "test"


def report_charts(model: ReportModel) -> list[NamedChart]:
    """Every chart of the report, in order: the groups per column, then the time of day."""
    names: set[str] = set()

    def unique(stem: str) -> str:
        name, k = stem, 2
        while name in names:
            name, k = f"{stem}-{k}", k + 1
        names.add(name)
        return name

    out = [
        NamedChart(unique(f"groups-{slug(c.name)}"), group_chart(model, c))
        for c in model.columns
        if any(model.cell(g, c).stats is not None for g in model.groups)
    ]
    out += [
        NamedChart(unique(f"time-of-day-{slug(t.column.name)}"), time_chart(model, t))
        for t in model.time_of_day
        if t.groups
    ]
    return out
