"""The storage report's ``index.html`` (charts by file reference, every table, the verdicts
with their determination tables, parameters and facts; every text from the library
HTML-escaped) and ``storage.csv`` under CloudHarmony's column names."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pairbench.analysis.storage_columns import suite_columns
from pairbench.export.escaping import csv_line, html_text
from pairbench.export.report_page import REPORT_CSS, ChartFiles, chart_figure, page_start
from pairbench.export.storage_data import SuiteData
from pairbench.export.storage_tables import (
    TitledTable,
    determination_table,
    facts_table,
    params_table,
    ratio_tables,
    result_tables,
    verdict_line,
)
from pairbench.export.table_render import html_table
from pairbench.export.tables import TextTable

GENERATOR = "Pairbench storage report"
_CSS = REPORT_CSS.format(width=100) + ".suites{display:flex;flex-wrap:wrap;gap:2em}"


def _heading(suites: Sequence[SuiteData]) -> str:
    first = suites[0]
    if len(suites) == 1:
        return (
            f"Storage suite #{first.id}: {first.params.test.value} on "
            f"{first.host}:{first.params.target}"
        )
    names = ", ".join(s.name for s in suites)
    return f"Storage suites compared ({first.params.test.value}): {names}"


def _table(titled: TitledTable, level: int = 3) -> str:
    return f"<h{level}>{html_text(titled.title)}</h{level}>\n{html_table(titled.table)}"


def _plain(table: TextTable) -> str:
    return html_table(table)


def _per_suite(suites: Sequence[SuiteData], body: str, data: SuiteData) -> str:
    if len(suites) == 1:
        return body
    return f"<div><h3>{html_text(data.name)}</h3>\n{body}</div>"


def _verdicts(suites: Sequence[SuiteData]) -> list[str]:
    parts = ['<section id="steady-state">', "<h2>Steady state</h2>", '<div class="suites">']
    for data in suites:
        body = []
        status = f"status {data.status}"
        lines = [
            verdict_line(stage)
            + (f"; limited by {limit}" if (limit := data.limited_by.get(stage.stage.name)) else "")
            for stage in data.progress.stages
        ]
        body.append("<ul>" + "".join(f"<li>{html_text(x)}</li>" for x in lines) + "</ul>")
        body.append(f'<p class="note">{html_text(status)}</p>')
        for stage in data.progress.stages:
            body.append(f"<h4>Determination: {html_text(stage.stage.name)}</h4>")
            body.append(_plain(determination_table(stage)))
        parts.append(_per_suite(suites, "\n".join(body), data))
    parts += ["</div>", "</section>"]
    return parts


def report_html(
    suites: Sequence[SuiteData], charts: Sequence[ChartFiles], *, csv_name: str = "storage.csv"
) -> str:
    """The report page of one suite, or of several compared (same test)."""
    title = _heading(suites)
    when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime())
    parts = [
        *page_start(title, _CSS, GENERATOR),
        f'<p class="note">Written {html_text(when)} by Pairbench. CSV (CloudHarmony column '
        f'names): <a href="{html_text(csv_name)}">{html_text(csv_name)}</a></p>',
    ]
    parts += _verdicts(suites)
    parts += ['<section id="charts">', "<h2>Charts</h2>"]
    parts += [chart_figure(chart) for chart in charts]
    parts.append("</section>")
    parts += ['<section id="results">', "<h2>Results (means over the measurement window)</h2>"]
    parts.append('<div class="suites">')
    for data in suites:
        body = "\n".join(_table(t, 4 if len(suites) > 1 else 3) for t in result_tables(data))
        parts.append(_per_suite(suites, body or "<p>no results yet</p>", data))
    parts += ["</div>", "</section>"]
    if len(suites) > 1:
        parts += [
            '<section id="ratios">',
            f"<h2>Ratios per cell (÷ {html_text(suites[0].name)})</h2>",
        ]
        parts += [_table(t) for t in ratio_tables(suites)]
        parts.append("</section>")
    parts += ['<section id="parameters">', "<h2>Parameters</h2>", '<div class="suites">']
    parts += [_per_suite(suites, _plain(params_table(d)), d) for d in suites]
    parts += ["</div>", "</section>"]
    parts += ['<section id="facts">', "<h2>Host and target</h2>", '<div class="suites">']
    parts += [_per_suite(suites, _plain(facts_table(d.facts)), d) for d in suites]
    parts += ["</div>", "</section>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def storage_csv(suites: Sequence[SuiteData]) -> str:
    """The suites' columns (``analysis.storage_columns``: CloudHarmony's, as its code
    computes them, its ``ss_*`` fields, then Pairbench's own) as the header, one row per
    suite in the given order; an empty field where a suite has no value."""
    rows = [suite_columns(s.params, s.progress, s.done, list(s.tables)) for s in suites]
    header: list[str] = []
    for row in rows:
        header += [name for name in row if name not in header]
    lines = [csv_line(header)]
    lines += [csv_line([row.get(name) for name in header]) for row in rows]
    return "".join(lines)
