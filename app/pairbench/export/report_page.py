"""What the HTML reports share: a page's start (head, style, title) and a chart as a figure."""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.export.escaping import html_text

# The style of the campaign and storage reports (their pages' widths differ).
REPORT_CSS = (
    "body{{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:{width}em}}"
    "table{{border-collapse:collapse;margin:0.5em 0 1.2em}}"
    "th,td{{border:1px solid #ccc;padding:0.3em 0.6em}}"
    "th{{background:#f3f3f3}}td.r,th.r{{text-align:right}}"
    "p.note,figcaption{{color:#555;font-size:0.9em}}"
    "figure{{margin:1em 0 2em}}figure img{{max-width:100%;height:auto;border:1px solid #eee}}"
)


@dataclass(frozen=True, slots=True)
class ChartFiles:
    """One chart as the report links it: its title, the file shown and the other formats."""

    name: str
    title: str
    shown: str
    others: tuple[str, ...]


def page_start(title: str, css: str, generator: str | None = None) -> list[str]:
    """The page's first lines: doctype, head (``generator`` marks a directory as ours),
    and the title as its heading; the body is left open."""
    meta = f'<meta name="generator" content="{generator}"/>' if generator else ""
    return [
        "<!DOCTYPE html>",
        '<html lang="en">',
        f'<head><meta charset="utf-8"/>{meta}'
        f"<title>{html_text(title)}</title><style>{css}</style></head>",
        "<body>",
        f"<h1>{html_text(title)}</h1>",
    ]


def chart_figure(chart: ChartFiles) -> str:
    """A chart as a figure (its id ``chart-NAME``), captioned with links to its other files."""
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
