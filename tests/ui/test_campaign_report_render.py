"""The campaign report drawn by Qt: every chart as PNG (of the spec's size, with each
group's colour drawn), SVG that parses and PDF; the groups chart and the time-of-day chart
of a 10-minute every-minute campaign."""

from __future__ import annotations

import random
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from campaign_shown import T0, make_cells, make_plan, make_shown
from pairbench.domain.campaign import Schedule
from pairbench.export.campaign_charts import group_color, report_charts
from pairbench.export.campaign_data import build_model
from pairbench.services.campaign_report import shown_data, write_model
from pairbench.ui.compare.render import render_chart

PAIRS = ("east-1", "east-2", "west-1")


def _colors(image: QImage) -> set[str]:
    """The colours of a grid of pixels over the image."""
    seen = set()
    for x in range(0, image.width(), 2):
        for y in range(0, image.height(), 2):
            seen.add(QColor(image.pixel(x, y)).name())
    return seen


def test_groups_and_time_of_day_charts_render(qtbot: QtBot, tmp_path: Path) -> None:
    cells = make_cells(PAIRS)
    plan = make_plan(PAIRS, schedule=Schedule("every", every_s=60, for_s=600))
    rng = random.Random(9)
    start = T0 - T0 % 3600 + 55 * 60
    runs = {
        c.index: [
            (start + 60 * k + c.index, (2 + c.index % 3) * 1e9 * rng.uniform(0.95, 1.05))
            if c.metric != "rtt_avg_ms"
            else (start + 60 * k + c.index, rng.uniform(0.1, 0.3))
            for k in range(10)
        ]
        for c in cells
    }
    shown = make_shown(plan, cells, runs)
    groups = {p: p.split("-")[0] for p in PAIRS}
    model = build_model(shown_data(shown, groups, "region"), local=time.gmtime)
    charts = report_charts(model)
    assert {c.name.split("-")[0] for c in charts} == {"groups", "time"}
    out = tmp_path / "report"
    write_model(model, out, render_chart, "pdf")
    for chart in charts:
        image = QImage(str(out / f"{chart.name}.png"))
        assert not image.isNull()
        assert (image.width(), image.height()) == (chart.spec.width, chart.spec.height)
        assert (out / f"{chart.name}.png").stat().st_size > 5000
        drawn = _colors(image)
        for group in model.groups:
            assert group_color(model, group) in drawn, (chart.name, group)
        assert ET.parse(out / f"{chart.name}.svg").getroot().tag.endswith("svg")
        assert (out / f"{chart.name}.pdf").read_bytes()[:5] == b"%PDF-"
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("<figure") == len(charts)
