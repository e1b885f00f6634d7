"""A campaign report's tables: groups × test columns (mean ± 95 % CI, n, CV, discards, rank
per column), each group against the baseline group, the discarded runs and the skipped
cells, as ``Section``s (rendered to Markdown and HTML) and ``campaign.csv`` (raw numbers)."""

from __future__ import annotations

import math
import statistics

from pairbench.domain.timestamps import time_text
from pairbench.domain.units import Scale, axis_label, format_value, metric_scale
from pairbench.export.campaign_data import PAIR, Column, GroupCell, ReportModel
from pairbench.export.escaping import csv_line
from pairbench.export.formatting import format_fraction, format_p, format_percent_change
from pairbench.export.table_render import to_markdown
from pairbench.export.tables import Report, Section, TextTable

NO_VALUE = "—"
REASON_MAX = 60  # characters of a skip reason in a grid cell


def column_scale(model: ReportModel, column: Column) -> Scale:
    """One scale for a column's table cells and chart: the one of its groups' median mean."""
    means = [
        abs(gc.stats.mean)
        for g in model.groups
        for gc in [model.cell(g, column)]
        if gc.stats is not None
    ]
    return metric_scale(column.metric, statistics.median(means) if means else 0.0)


def group_heading(model: ReportModel) -> str:
    """ "Pair", or the tag grouped by ("Zone")."""
    by = model.data.group_by
    return "Pair" if by == PAIR else by[:1].upper() + by[1:]


def _short(text: str) -> str:
    """A reason cut for a grid cell (the skipped table has it whole)."""
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 1] + "…"


def cell_text(gc: GroupCell, scale: Scale) -> str:
    """``9.41 ± 0.12 (n 5, CV 0.8 %, 1 discarded)``; ``skipped: why``; ``pending``."""
    st = gc.stats
    if st is None:
        if gc.status == "skipped":
            return "skipped: " + _short("; ".join(gc.skipped))
        return gc.status if gc.status == "pending" else NO_VALUE
    half = st.ci.half_width if st.ci is not None else None
    value = format_value(gc.column.metric, st.mean, half, scale=scale, unit=False)
    details = [f"n {gc.n}", f"CV {format_fraction(st.cv)}"]
    if gc.discarded:
        details.append(f"{len(gc.discarded)} discarded")
    if gc.skipped:  # skipped after some runs: those still count
        single = len(gc.pairs) == 1
        details.append("then skipped" if single else f"{len(gc.skipped)} skipped")
    return f"{value} ({', '.join(details)})"


def grid_table(model: ReportModel) -> TextTable:
    """Groups (rows) × test columns: each cell's mean ± CI half-width, n, CV, discards, and
    the group's rank in the column."""
    headers = [group_heading(model)]
    align = ["l"]
    if model.data.group_by != PAIR:
        headers.append("Pairs")
        align.append("l")
    scales = [column_scale(model, c) for c in model.columns]
    # Which cells measured the hosts and which the network, when some run has a verdict.
    verdicts = any(r.limited_by for c in model.data.cells for r in c.runs)
    for column, scale in zip(model.columns, scales, strict=True):
        headers += [axis_label(column.name, scale), "Rank"]
        align += ["r", "r"]
        if verdicts:
            headers.append("Limited by")
            align.append("l")
    rows = []
    for group in model.groups:
        row = [group]
        if model.data.group_by != PAIR:
            pairs = {p for c in model.columns for p in model.cell(group, c).pairs}
            row.append(", ".join(sorted(pairs)))
        for column, scale in zip(model.columns, scales, strict=True):
            gc = model.cell(group, column)
            row += [cell_text(gc, scale), NO_VALUE if gc.rank is None else str(gc.rank)]
            if verdicts:
                row.append(gc.limited_by or NO_VALUE)
        rows.append(tuple(row))
    return TextTable(tuple(headers), tuple(rows), tuple(align))


def _verdict(better: bool | None, p: float | None, note: str) -> str:
    """Better or worse than the baseline when Welch's test says so at 5 %."""
    if p is None:
        side = "equal means" if better is None else "better" if better else "worse"
        return f"{side} (no test: {note})" if note else side
    if p >= 0.05:
        return "no significant difference at 5 %"
    return f"{'better' if better else 'worse'}, significant at 5 %"


def baseline_table(model: ReportModel) -> TextTable:
    """Per column, each group's mean against the baseline group's: ratio, relative
    difference, the 95 % CI of the difference and Welch's p (both groups ≥ 2 runs)."""
    rows = []
    for column in model.columns:
        scale = column_scale(model, column)
        for vs in model.versus.get(column.name, ()):
            test = vs.test
            ci = NO_VALUE
            if test is not None and test.ci is not None:
                low = format_value(column.metric, test.ci.low, scale=scale)
                high = format_value(column.metric, test.ci.high, scale=scale)
                ci = f"{low} … {high}"
            note = "fewer than 2 runs" if test is None else test.note
            rows.append(
                (
                    column.name,
                    vs.group,
                    format_value(column.metric, vs.mean, scale=scale),
                    format_value(column.metric, vs.baseline_mean, scale=scale),
                    NO_VALUE if vs.ratio is None else f"{vs.ratio:.3f}",
                    format_percent_change(vs.change),
                    ci,
                    format_p(None if test is None else test.p_value),
                    _verdict(vs.better, None if test is None else test.p_value, note),
                )
            )
    headers = (
        "Test",
        group_heading(model),
        "Mean",
        f"Baseline ({model.baseline})",
        "Ratio",
        "Difference",
        "95 % CI of the difference",
        "p (Welch)",
        "",
    )
    return TextTable(headers, tuple(rows), ("l", "l", "r", "r", "r", "r", "r", "r", "l"))


def discards_table(model: ReportModel) -> TextTable:
    """Every run the outlier policy discarded: run id, where, value, reason."""
    by_pair = model.data.group_by == PAIR
    rows = []
    for gc, run in model.discarded:
        where = [run.pair] if by_pair else [gc.group, run.pair]
        rows.append(
            (
                run.source,
                *where,
                gc.column.name,
                format_value(gc.column.metric, run.value),
                run.discard,
            )
        )
    headers = ("Run", *(["Pair"] if by_pair else [group_heading(model), "Pair"]), "Test")
    align = ("r", *(["l"] if by_pair else ["l", "l"]), "l", "r", "l")
    return TextTable((*headers, "Value", "Reason"), tuple(rows), align)


def skipped_table(model: ReportModel) -> TextTable:
    """The cells skipped, with the reason."""
    rows = [(c.cell.pair, c.cell.column, c.reason) for c in model.skipped]
    return TextTable(("Pair", "Test", "Reason"), tuple(rows), ("l", "l", "l"))


def report_title(model: ReportModel) -> str:
    d = model.data
    label = f" ({d.label})" if d.label else ""
    return f"Campaign #{d.id}: {d.name}{label}"


def _rank_rule(model: ReportModel) -> str:
    lower = [c.name for c in model.columns if c.lower_is_better]
    text = "Rank 1 is the best mean of its column: the highest"
    if lower:
        text += f", except the lowest for {', '.join(lower)} (latency, RTT, jitter, loss)"
    return text + "; equal means share a rank."


def sections(model: ReportModel) -> list[Section]:
    """The report's tables with their notes, in order."""
    d = model.data
    when = time_text(d.created_at, "%Y-%m-%d %H:%M %Z")
    grouped = (
        "one row per pair"
        if d.group_by == PAIR
        else f"pairs grouped by their tag {d.group_by!r} (runs of a group's pairs pooled)"
    )
    notes = (
        f"Status {d.status}; started {when}; schedule {d.schedule}; {d.repeats}; "
        f"outlier policy {d.outliers}.",
        f"Rows: {grouped}. Each cell: the mean of the kept runs ± the half-width of its 95 % "
        "confidence interval (Student t; none for one run), n completed runs, the CV of the "
        "kept runs and how many the outlier policy discarded (judged within each cell).",
        _rank_rule(model),
    )
    out = [Section(f"Results by {group_heading(model).lower()}", grid_table(model), notes)]
    versus = baseline_table(model)
    if versus.rows:
        out.append(
            Section(
                f"Against the baseline: {model.baseline}",
                versus,
                (
                    "Ratio = group mean ÷ baseline mean; the difference's CI and p from "
                    "Welch's t-test (two-sided) where both groups have 2 runs or more.",
                ),
            )
        )
    discards = discards_table(model)
    lines = () if discards.rows else ("No run discarded.",)
    out.append(Section("Discarded runs", discards if discards.rows else None, lines))
    skipped = skipped_table(model)
    if skipped.rows:
        out.append(Section("Skipped cells", skipped))
    return out


def campaign_markdown(model: ReportModel, charts: list[tuple[str, str]]) -> str:
    """``campaign.md``: the tables, then the charts as images (title, file)."""
    text = to_markdown(Report(report_title(model), tuple(sections(model))))
    if charts:
        text += "\n## Charts\n\n" + "\n\n".join(f"![{t}]({f})" for t, f in charts) + "\n"
    return text


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


CSV_HEADER = (
    "group", "pairs", "test", "metric", "status", "n", "kept", "discarded", "mean",
    "ci_low", "ci_high", "ci_half_width", "cv", "rank", "baseline", "ratio_to_baseline",
    "vs_baseline_percent", "welch_p", "limited_by",
)  # fmt: skip


def campaign_csv(model: ReportModel) -> str:
    """One row per group and test column with raw numbers in the metric's base unit (the
    metric's name says it); empty fields where there is no value."""
    lines = [csv_line(CSV_HEADER)]
    for column in model.columns:
        versus = {vs.group: vs for vs in model.versus.get(column.name, ())}
        for group in model.groups:
            gc = model.cell(group, column)
            st = gc.stats
            ci = st.ci if st is not None else None
            vs = versus.get(group)
            test = vs.test if vs is not None else None
            pct = None if vs is None or vs.change is None else vs.change * 100.0
            lines.append(
                csv_line(
                    [
                        group,
                        " ".join(gc.pairs),
                        column.name,
                        column.metric,
                        gc.status,
                        gc.n,
                        len(gc.kept),
                        len(gc.discarded),
                        None if st is None else st.mean,
                        None if ci is None else ci.low,
                        None if ci is None else ci.high,
                        None if ci is None else ci.half_width,
                        None if st is None else _num(st.cv),
                        gc.rank,
                        "yes" if group == model.baseline else "no",
                        None if vs is None else _num(vs.ratio),
                        _num(pct),
                        None if test is None else _num(test.p_value),
                        gc.limited_by,
                    ]
                )
            )
    return "".join(lines)
