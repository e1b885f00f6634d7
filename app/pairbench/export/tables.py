"""Comparison tables: a ``Comparison`` assembled as a ``Report`` of text tables and sections.

``comparison_report`` turns an ``analysis.compare.Comparison`` into a ``Report``: the
headline table (one row per environment/test, one column per metric with its change from the
baseline, like the field reports' conclusions), the statistics of each group, the Welch
comparisons, the discarded runs and what differs between the runs. ``export.table_render``
renders a report (Markdown, HTML, terminal text) and writes the headline table as CSV.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairbench.analysis.compare import Comparison, GroupResult
from pairbench.analysis.compare_runs import GroupKind
from pairbench.analysis.outliers import OutlierMethod
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import Scale, axis_label, format_value, metric_scale, range_scale
from pairbench.export.formatting import format_fraction, format_p, format_percent_change


@dataclass(frozen=True, slots=True)
class TextTable:
    """Headers and rows of text; ``align`` is "l" or "r" per column."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of a report: an optional table, then lines (bullets if ``bullets``)."""

    title: str
    table: TextTable | None = None
    lines: tuple[str, ...] = ()
    bullets: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """A title and sections."""

    title: str
    sections: tuple[Section, ...]


# --- building the report -----------------------------------------------------------------


def _level(cmp: Comparison) -> str:
    return f"{cmp.confidence * 100:g} %"


def headline_table(cmp: Comparison) -> TextTable:
    """Environment | Test | n | metric | vs baseline | ... (field-report shape); each value
    in the unit of its own size, as the live plots print it ("25.0 Gbit/s", never
    "25000 Mbit/s" beside a row of 200 Mbit/s)."""
    table = cmp.table
    headers = ["Environment", "Test", "n"]
    align = ["l", "l", "r"]
    for column in table.columns:
        headers += [column.label, "vs baseline"]
        align += ["r", "r"]
    # Which cells measured the hosts and which the network: when some run has a verdict.
    verdicts = any(row.limited_by for row in table.rows)
    if verdicts:
        headers.append("Limited by")
        align.append("l")
    rows: list[tuple[str, ...]] = []
    for row in table.rows:
        cells = [row.group, row.description, str(row.n)]
        for column, cell in zip(table.columns, row.cells, strict=True):
            cells.append(format_value(column.metric, cell.mean, cell.half_width))
            if row.is_baseline:
                cells.append("baseline")
            else:
                cells.append(format_percent_change(cell.vs_baseline))
        if verdicts:
            cells.append(row.limited_by or "—")
        rows.append(tuple(cells))
    return TextTable(tuple(headers), tuple(rows), tuple(align))


def comparison_scale(cmp: Comparison) -> Scale:
    """The scale of the chart's value axis and of the title above it: the unit of the largest
    value drawn (the live plots' axis rule, ``domain.units.range_scale``): every run's value,
    the confidence bounds and the curves."""
    values: list[float] = []
    for g in cmp.groups:
        values += [v.value for v in g.kept] + [d.value for d in g.discarded]
        if g.stats is not None:
            values.append(g.stats.mean)
            if g.stats.ci is not None:
                values += [g.stats.ci.low, g.stats.ci.high]
    for curve in cmp.curves:
        finite = np.abs(curve.v[np.isfinite(curve.v)])
        if finite.size:
            values.append(float(finite.max()))
    return range_scale(cmp.metric.unit, (abs(v) for v in values))


def stats_table(cmp: Comparison) -> TextTable:
    """Group | n | Mean | Median | Std dev | CV | CI | Min | Max | Discarded; each value in the
    unit of its own size (a CI's bounds in the unit of the larger one)."""
    metric = cmp.metric.name
    headers = (
        "Group",
        "n",
        "Mean",
        "Median",
        "Std dev",
        "CV",
        f"{_level(cmp)} CI",
        "Min",
        "Max",
        "Discarded",
    )
    rows: list[tuple[str, ...]] = []
    for g in cmp.groups:
        discarded = ", ".join(f"#{d.run_id}" for d in g.discarded) or "—"
        st = g.stats
        if st is None:
            rows.append((g.name, "0", *["—"] * 7, discarded))
            continue

        def fmt(value: float | None) -> str:
            return format_value(metric, value)

        ci = "—"
        if st.ci is not None:
            scale = metric_scale(metric, max(abs(st.ci.low), abs(st.ci.high)))
            low = format_value(metric, st.ci.low, scale=scale, unit=False)
            ci = f"{low} … {format_value(metric, st.ci.high, scale=scale)}"
        rows.append(
            (
                g.name,
                str(st.n),
                fmt(st.mean),
                fmt(st.median),
                fmt(st.stddev),
                format_fraction(st.cv),
                ci,
                fmt(st.minimum),
                fmt(st.maximum),
                discarded,
            )
        )
    return TextTable(headers, tuple(rows), ("l",) + ("r",) * 8 + ("l",))


def welch_table(cmp: Comparison) -> TextTable | None:
    """Each group against the baseline: difference, its CI, relative change, t, df, p."""
    if not cmp.differences or cmp.baseline is None:
        return None
    metric = cmp.metric.name
    rows: list[tuple[str, ...]] = []
    for name, d in cmp.differences.items():
        # Each row in the unit of its own size: "21.6 Mbit/s", not "0.0216 Gbit/s".
        bounds = [d.ci.low, d.ci.high] if d.ci is not None else []
        scale = metric_scale(metric, max(abs(x) for x in [d.difference, *bounds]))
        ci = "—"
        if d.ci is not None:
            low = format_value(metric, d.ci.low, scale=scale)
            high = format_value(metric, d.ci.high, scale=scale)
            ci = f"{low} … {high}"
        rows.append(
            (
                f"{name} − {cmp.baseline}",
                format_value(metric, d.difference, scale=scale),
                format_percent_change(d.relative),
                ci,
                "—" if d.t is None else f"{d.t:.2f}",
                "—" if d.df is None else f"{d.df:.1f}",
                format_p(d.p_value),
                d.note or _verdict(d.p_value, cmp.confidence),
            )
        )
    headers = (
        "Comparison",
        "Difference",
        "Relative",
        f"{_level(cmp)} CI of the difference",
        "t",
        "df",
        "p",
        "",
    )
    return TextTable(headers, tuple(rows), ("l", "r", "r", "r", "r", "r", "r", "l"))


def _verdict(p: float | None, confidence: float) -> str:
    if p is None:
        return ""
    alpha = 1.0 - confidence
    if p < alpha:
        return f"significant at {alpha * 100:g} %"
    return f"not significant at {alpha * 100:g} %"


def diff_table(cmp: Comparison) -> TextTable | None:
    """The metadata fields that differ, one column per group (per run when not grouped)."""
    if not cmp.diff.rows:
        return None
    by_group = cmp.diff.by_group()
    names = list(dict.fromkeys(cmp.diff.groups))
    rows = tuple((field, *(values[g] for g in names)) for field, values in by_group)
    return TextTable(("Field", *names), rows, ("l",) + ("l",) * len(names))


def _grouping_text(cmp: Comparison) -> str:
    kind = cmp.group_by.kind
    if kind is GroupKind.RUN:
        return "per run"
    if kind is GroupKind.TAG:
        return f"grouped by tag {cmp.group_by.key!r}"
    if kind is GroupKind.RAN_BY:
        return "grouped by who ran them"
    return f"grouped by {kind.value}"


def comparison_title(cmp: Comparison) -> str:
    """E.g. "Throughput (Mbit/s), grouped by pair": the unit of the numbers shown under it
    (``comparison_scale``: the statistics table's columns and the chart's value axis)."""
    return f"{axis_label(cmp.metric.label, comparison_scale(cmp))}, {_grouping_text(cmp)}"


def comparison_report(cmp: Comparison, *, title: str | None = None) -> Report:
    """The whole comparison as a report (see the module docstring)."""
    policy = cmp.policy
    notes = [
        f"Means over each group's runs ± the half-width of their {_level(cmp)} confidence "
        "interval (Student t; none for a single run). "
        + (f"Changes are relative to the baseline, {cmp.baseline}." if cmp.baseline else ""),
        f"Outlier policy: {policy.describe()}"
        + ("" if policy.method is OutlierMethod.NONE else ", judged on " + cmp.metric.label)
        + ".",
    ]
    sections = [Section("Comparison", headline_table(cmp), tuple(notes))]
    stats_notes = [f"{g.name}: {g.stats.note}" for g in cmp.groups if g.stats and g.stats.note]
    sections.append(
        Section(
            f"Statistics: {cmp.metric.label}, {_grouping_text(cmp)}",
            stats_table(cmp),
            tuple(stats_notes),
        )
    )
    welch = welch_table(cmp)
    if welch is not None:
        sections.append(
            Section(
                "Against the baseline (Welch's t-test)",
                welch,
                ("Difference = group mean − baseline mean; two-sided p-value.",),
            )
        )
    sections.append(_discarded_section(cmp))
    diff = diff_table(cmp)
    same = f"{cmp.diff.same} field(s) are identical in every run and not shown" + (
        f"; {cmp.diff.hidden} more differ only as unset against empty or the tool's default."
        if cmp.diff.hidden
        else "."
    )
    if diff is None:
        sections.append(
            Section("What differs", None, ("Nothing differs in versions, parameters or facts.",))
        )
    else:
        sections.append(Section("What differs", diff, (same,)))
    if cmp.warnings:
        sections.append(Section("Warnings", None, cmp.warnings, bullets=True))
    return Report(title or comparison_title(cmp), tuple(sections))


def _discarded_section(cmp: Comparison) -> Section:
    lines: list[str] = []
    for g in cmp.groups:
        lines += [
            f"run {d.run_id} ({g.name}): {format_value(cmp.metric.name, d.value)} — {d.reason}"
            for d in g.discarded
        ]
        lines += [f"{g.name}: {g.outliers.note}" for g in [g] if g.outliers and g.outliers.note]
    if not any(g.discarded for g in cmp.groups):
        lines.insert(0, f"No run discarded (outlier policy: {cmp.policy}).")
    return Section("Discarded runs", None, tuple(lines), bullets=True)


def footer_text(cmp: Comparison) -> str:
    """Pairs, tools (with versions) and the dates of the compared runs, on one line."""
    pairs = sorted({r.spec.pair for r in cmp.runs})
    tools = sorted(
        {
            f"{r.spec.tool} {r.tool_version}".strip() if r.tool_version else r.spec.tool
            for r in cmp.runs
        }
    )
    days = sorted(time_text(r.started_at, "%Y-%m-%d", utc=True) for r in cmp.runs)
    when = days[0] if days[0] == days[-1] else f"{days[0]} – {days[-1]}"
    return f"Pairs: {', '.join(pairs)} · Tools: {', '.join(tools)} · Runs: {when} (UTC)"


# --- renderers ---------------------------------------------------------------------------


TEXT_CELL_MAX = 60  # characters of a terminal table cell; longer text is cut with "…"


# --- CSV ---------------------------------------------------------------------------------


def group_summary_lines(groups: Sequence[GroupResult], metric: str) -> list[str]:
    """One line per group: ``name: mean ± h unit (n = 3, CV 1.2 %)`` (for quick summaries)."""
    lines = []
    for g in groups:
        if g.stats is None:
            lines.append(f"{g.name}: no value")
            continue
        half = g.stats.ci.half_width if g.stats.ci else None
        lines.append(
            f"{g.name}: {format_value(metric, g.stats.mean, half)} "
            f"(n = {g.stats.n}, CV {format_fraction(g.stats.cv)})"
        )
    return lines
