"""A comparison ``Report`` rendered as Markdown, HTML or terminal text; its headline table as CSV.

The CSV has raw numbers (full precision, units in the metric names) for spreadsheets. Every
text that comes from users is escaped per format by ``export.escaping``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

from pairbench.analysis.compare import Comparison
from pairbench.export.escaping import (
    csv_line,
    html_text,
    markdown_row,
    markdown_text,
    terminal_text,
)
from pairbench.export.report_page import page_start
from pairbench.export.tables import TEXT_CELL_MAX, Report, TextTable


def markdown_table(table: TextTable) -> str:
    """A GitHub-flavoured Markdown table (cells escaped: one row per line, no HTML)."""
    lines = [markdown_row(table.headers)]
    lines.append("|" + "|".join(":--" if a == "l" else "--:" for a in table.align) + "|")
    lines += [markdown_row(row) for row in table.rows]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    """The report as Markdown: a heading per section, GFM tables, notes and bullets."""
    parts = [f"# {markdown_text(report.title)}"]
    for section in report.sections:
        parts.append(f"## {markdown_text(section.title)}")
        if section.table is not None:
            parts.append(markdown_table(section.table))
        if section.lines:
            if section.bullets:
                parts.append("\n".join(f"- {markdown_text(line)}" for line in section.lines))
            else:
                parts.append("\n\n".join(markdown_text(line) for line in section.lines))
    return "\n\n".join(parts) + "\n"


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:0.5em 0 1em}"
    "th,td{border:1px solid #ccc;padding:0.3em 0.6em}"
    "th{background:#f3f3f3}td.r,th.r{text-align:right}"
    "caption,p.note{color:#555;font-size:0.9em}"
)


def html_table(table: TextTable) -> str:
    """A ``<table>`` with a header row; right-aligned numeric columns (class "r")."""

    def cls(a: str) -> str:
        return ' class="r"' if a == "r" else ""

    head = "".join(
        f"<th{cls(a)}>{html_text(h)}</th>" for h, a in zip(table.headers, table.align, strict=True)
    )
    body = "\n".join(
        "<tr>"
        + "".join(f"<td{cls(a)}>{html_text(c)}</td>" for c, a in zip(row, table.align, strict=True))
        + "</tr>"
        for row in table.rows
    )
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def to_html(report: Report) -> str:
    """A standalone, well-formed HTML5 page (also valid XML) to paste into a blog post."""
    parts = page_start(report.title, _CSS)
    for section in report.sections:
        parts.append(f"<section>\n<h2>{html_text(section.title)}</h2>")
        if section.table is not None:
            parts.append(html_table(section.table))
        if section.lines and section.bullets:
            items = "".join(f"<li>{html_text(line)}</li>" for line in section.lines)
            parts.append(f"<ul>{items}</ul>")
        elif section.lines:
            parts += [f'<p class="note">{html_text(line)}</p>' for line in section.lines]
        parts.append("</section>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def text_table(table: TextTable, *, cell_max: int | Sequence[int] = TEXT_CELL_MAX) -> str:
    """Columns padded to their widest cell, two spaces apart, a rule under the headers; cells
    safe for a terminal (``terminal_text``: controls shown as escapes, cut at ``cell_max``
    characters, one limit for every column or one per column)."""
    limits = [cell_max] * len(table.headers) if isinstance(cell_max, int) else list(cell_max)
    table = TextTable(
        tuple(terminal_text(h, n) for h, n in zip(table.headers, limits, strict=True)),
        tuple(
            tuple(terminal_text(c, n) for c, n in zip(row, limits, strict=True))
            for row in table.rows
        ),
        table.align,
    )
    widths = [len(h) for h in table.headers]
    for row in table.rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if a == "r" else c.ljust(w)
            for c, w, a in zip(cells, widths, table.align, strict=True)
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(table.headers), rule, *(line(row) for row in table.rows)])


def to_text(report: Report) -> str:
    """The report for a terminal (user text shown with ``terminal_text``)."""
    title = terminal_text(report.title)
    parts = [title, "=" * len(title)]
    for section in report.sections:
        section_title = terminal_text(section.title)
        parts += ["", section_title, "-" * len(section_title)]
        if section.table is not None:
            parts.append(text_table(section.table))
        prefix = "  - " if section.bullets else ""
        parts += [f"{prefix}{terminal_text(line)}" for line in section.lines]
    return "\n".join(parts) + "\n"


def comparison_csv(cmp: Comparison) -> str:
    """The headline table with raw numbers: one row per group, four columns per metric.

    Columns: ``environment, test, n, baseline``, then for each metric ``M_mean``,
    ``M_ci_half_width`` (of the mean, at the comparison's confidence), ``M_n`` and
    ``M_vs_baseline_percent``, and ``limited_by`` last when some run has a verdict. Numbers
    are written with full precision (``repr``); a missing value is an empty field. Text fields
    go through ``escaping.csv_cell``: one that a spreadsheet would run as a formula (``=…``,
    ``+…``, ``-…``, ``@…``) starts with ``'``.
    """
    out = io.StringIO()
    header = ["environment", "test", "n", "baseline"]
    for column in cmp.table.columns:
        m = column.metric
        header += [f"{m}_mean", f"{m}_ci_half_width", f"{m}_n", f"{m}_vs_baseline_percent"]
    verdicts = any(row.limited_by for row in cmp.table.rows)
    if verdicts:
        header.append("limited_by")
    out.write(csv_line(header))
    for row in cmp.table.rows:
        fields: list[str | float | None] = [
            row.group,
            row.description,
            row.n,
            "yes" if row.is_baseline else "no",
        ]
        for cell in row.cells:
            pct = None if cell.vs_baseline is None else cell.vs_baseline * 100.0
            fields += [_num(cell.mean), _num(cell.half_width), cell.n, _num(pct)]
        if verdicts:
            fields.append(row.limited_by)
        out.write(csv_line(fields))
    return out.getvalue()


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)
