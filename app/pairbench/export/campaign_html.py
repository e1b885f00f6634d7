"""A campaign report's ``index.html``: every chart (by file reference, other formats linked),
every table, links to ``campaign.md`` and ``campaign.csv``; every text from the library
HTML-escaped. ``GENERATOR`` marks a directory as ours to rewrite."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pairbench.export.campaign_data import ReportModel
from pairbench.export.campaign_tables import report_title, sections
from pairbench.export.escaping import html_text
from pairbench.export.report_page import REPORT_CSS, ChartFiles, chart_figure, page_start
from pairbench.export.table_render import html_table

GENERATOR = "Pairbench campaign report"
_CSS = REPORT_CSS.format(width=110)


def report_html(
    model: ReportModel,
    charts: Sequence[ChartFiles],
    *,
    csv_name: str = "campaign.csv",
    md_name: str = "campaign.md",
) -> str:
    """The report page: the tables, then the charts."""
    title = report_title(model)
    when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime())
    parts = [
        *page_start(title, _CSS, GENERATOR),
        f'<p class="note">Written {html_text(when)} by Pairbench. Tables as Markdown: '
        f'<a href="{html_text(md_name)}">{html_text(md_name)}</a>; raw numbers: '
        f'<a href="{html_text(csv_name)}">{html_text(csv_name)}</a></p>',
    ]
    if charts:
        parts.append("<ul>")
        parts += [
            f'<li><a href="#chart-{html_text(c.name)}">{html_text(c.title)}</a></li>'
            for c in charts
        ]
        parts.append("</ul>")
    for section in sections(model):
        parts.append(f"<section>\n<h2>{html_text(section.title)}</h2>")
        if section.table is not None:
            parts.append(html_table(section.table))
        parts += [f'<p class="note">{html_text(line)}</p>' for line in section.lines]
        parts.append("</section>")
    parts += ['<section id="charts">', "<h2>Charts</h2>"]
    parts += [chart_figure(chart) for chart in charts] or ["<p>no run to chart yet</p>"]
    parts += ["</section>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"
