"""A campaign report's ``index.html``: every chart (by file reference, other formats linked),
every table, links to ``campaign.md`` and ``campaign.csv``; every text from the library
HTML-escaped. ``GENERATOR`` marks a directory as ours to rewrite."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pairbench.export.campaign_data import ReportModel
from pairbench.export.campaign_tables import report_title, sections
from pairbench.export.escaping import html_text
from pairbench.export.storage_html import ChartFiles
from pairbench.export.table_render import html_table

GENERATOR = "Pairbench campaign report"
_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:110em}"
    "table{border-collapse:collapse;margin:0.5em 0 1.2em}"
    "th,td{border:1px solid #ccc;padding:0.3em 0.6em}"
    "th{background:#f3f3f3}td.r,th.r{text-align:right}"
    "p.note,figcaption{color:#555;font-size:0.9em}"
    "figure{margin:1em 0 2em}figure img{max-width:100%;height:auto;border:1px solid #eee}"
)


def _figure(chart: ChartFiles) -> str:
    links = " · ".join(
        f'<a href="{html_text(name)}">{html_text(name.rsplit(".", 1)[-1].upper())}</a>'
        for name in chart.others
    )
    caption = html_text(chart.title) + (f" ({links})" if links else "")
    return (
        f'<figure id="chart-{html_text(chart.name)}">'
        f'<img src="{html_text(chart.shown)}" alt="{html_text(chart.title)}"/>'
        f"<figcaption>{caption}</figcaption></figure>"
    )


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
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"/>'
        f'<meta name="generator" content="{GENERATOR}"/>'
        f"<title>{html_text(title)}</title><style>{_CSS}</style></head>",
        "<body>",
        f"<h1>{html_text(title)}</h1>",
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
    parts += [_figure(chart) for chart in charts] or ["<p>no run to chart yet</p>"]
    parts += ["</section>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"
