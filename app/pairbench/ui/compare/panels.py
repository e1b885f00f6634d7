"""Draws a ``ChartSpec``'s grid of panels (``export.panels``) into a chart widget: lines,
bars, reference bands and heat-map cells, log axes with the spec's ticks, and each panel's
legend beside its plot so that it never covers the data."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsRectItem, QSizePolicy

from pairbench.export.charts import ChartSpec
from pairbench.export.panels import Band, HeatCell, Panel, Series, Tick, log_ticks, padded
from pairbench.ui.compare.summary_draw import FOOTER as NOTE
from pairbench.ui.compare.summary_draw import FOREGROUND

if TYPE_CHECKING:
    from pairbench.ui.compare.render import ChartWidget


def draw_panels(widget: ChartWidget, spec: ChartSpec, row: int) -> int:
    """Add the spec's panels, ``spec.columns`` to a row, at layout row ``row``; the next row."""
    grid = widget.addLayout(row=row, col=0)
    columns = max(1, spec.columns)
    for i, panel in enumerate(spec.panels):
        cell = grid.addLayout(row=i // columns, col=i % columns)
        _draw_panel(widget, cell, panel)
    widget.ci.layout.setRowStretchFactor(row, 10)
    return row + 1


def qcolor(text: str) -> QColor:
    """``#rrggbb`` or ``#rrggbbaa`` (CSS order; Qt reads eight digits as ``#aarrggbb``)."""
    if len(text) == 9 and text.startswith("#"):
        r, g, b, a = (int(text[i : i + 2], 16) for i in (1, 3, 5, 7))
        return QColor(r, g, b, a)
    return QColor(text)


def _log(value: float, log: bool) -> float:
    if not log:
        return value
    return math.log10(value) if value > 0 else math.nan


def _logs(values: Sequence[float], log: bool) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not log:
        return array
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(array > 0, np.log10(np.where(array > 0, array, 1.0)), np.nan)


def _draw_panel(widget: ChartWidget, cell: pg.GraphicsLayout, panel: Panel) -> None:
    plot = cell.addPlot(row=0, col=0)
    plot.setTitle(html.escape(panel.title), color=FOREGROUND, size="10pt")
    plot.showGrid(x=not panel.cells, y=not panel.cells, alpha=0.15)
    plot.setLabel("bottom", html.escape(panel.x_label), color=FOREGROUND)
    plot.setLabel("left", html.escape(panel.y_label), color=FOREGROUND)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(FOREGROUND)
        axis.setTextPen(FOREGROUND)
        axis.enableAutoSIPrefix(False)
    plot.setMenuEnabled(False)
    legend = pg.LegendItem(
        labelTextColor=FOREGROUND,
        labelTextSize="9pt",
        brush=pg.mkBrush(255, 255, 255, 0),
        verSpacing=-4,
    )
    for band in panel.bands:
        _draw_band(plot, legend, band, panel)
    for heat in panel.cells:
        _draw_cell(plot, heat)
    for series in panel.series:
        _draw_series(widget, plot, legend, series, panel)
    _ticks(plot, panel)
    _ranges(plot, panel)
    if panel.legend and legend.items:
        legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        cell.addItem(legend, row=0, col=1)
        cell.layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    if panel.note:
        cell.addLabel(html.escape(panel.note), row=1, col=0, colspan=2, size="8pt", color=NOTE)
    if not panel.series and not panel.cells and panel.empty_text:
        text = pg.TextItem(panel.empty_text, color=NOTE, anchor=(0.5, 0.5))
        plot.addItem(text)
        text.setPos(0.5, 0.5)
        plot.setRange(xRange=(0, 1), yRange=(0, 1))
    plot.setMouseEnabled(x=not panel.cells, y=not panel.cells)


def _draw_band(plot: pg.PlotItem, legend: pg.LegendItem, band: Band, panel: Panel) -> None:
    log = panel.log_x if band.vertical else panel.log_y
    values = (_log(band.low, log), _log(band.high, log))
    orientation = "vertical" if band.vertical else "horizontal"
    color = qcolor(band.color)
    item = pg.LinearRegionItem(
        values=values, orientation=orientation, movable=False, brush=pg.mkBrush(color)
    )
    item.setZValue(-10)
    for line in item.lines:
        line.setPen(pg.mkPen(None))
    plot.addItem(item)
    if band.legend:
        swatch = QColor(color)
        swatch.setAlpha(min(255, color.alpha() * 4))
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(swatch, width=9)), html.escape(band.legend))


def _draw_cell(plot: pg.PlotItem, heat: HeatCell) -> None:
    rect = QGraphicsRectItem(QRectF(heat.x - 0.5, heat.y - 0.5, 1.0, 1.0))
    rect.setBrush(pg.mkBrush(qcolor(heat.color)))
    rect.setPen(pg.mkPen("#ffffff", width=1))
    plot.addItem(rect)
    text = pg.TextItem(heat.text, color=heat.text_color, anchor=(0.5, 0.5))
    plot.addItem(text)
    text.setPos(heat.x, heat.y)


def _draw_series(
    widget: ChartWidget, plot: pg.PlotItem, legend: pg.LegendItem, series: Series, panel: Panel
) -> None:
    x, y = _logs(series.x, panel.log_x), _logs(series.y, panel.log_y)
    color = qcolor(series.color)
    if series.bar_width > 0:
        bars = pg.BarGraphItem(
            x=x, height=y, width=series.bar_width, brush=pg.mkBrush(color), pen=pg.mkPen(None)
        )
        if len(x):
            plot.addItem(bars)
        if series.legend:
            legend.addItem(bars, html.escape(series.legend))
        return
    pen = pg.mkPen(color, width=series.width) if series.line else None
    if pen is not None and series.dash:
        pen.setDashPattern([5, 4])
    item = pg.PlotDataItem(
        pen=pen,
        symbol=series.symbol,
        symbolSize=7,
        symbolPen=pg.mkPen(color),
        symbolBrush=pg.mkBrush(color),
        antialias=True,
        name=None,
    )
    if len(x):
        item.setData(x, y)
        plot.addItem(item)
        if series.line:
            widget.curve_items.append(item)
            widget.full_data.append((x, y, False))
    if series.legend:
        legend.addItem(item, html.escape(series.legend))


def _ticks(plot: pg.PlotItem, panel: Panel) -> None:
    for name, ticks, log in (
        ("bottom", panel.x_ticks, panel.log_x),
        ("left", panel.y_ticks, panel.log_y),
    ):
        if not ticks and log:
            ticks = _data_log_ticks(panel, name == "bottom")
        if ticks:
            plot.getAxis(name).setTicks([[(_log(v, log), text) for v, text in ticks]])


def _data_log_ticks(panel: Panel, along_x: bool) -> tuple[Tick, ...]:
    values = [v for s in panel.series for v in (s.x if along_x else s.y) if v > 0]
    return log_ticks(min(values), max(values)) if values else ()


def _ranges(plot: pg.PlotItem, panel: Panel) -> None:
    if panel.cells:
        xs = [c.x for c in panel.cells]
        ys = [c.y for c in panel.cells]
        plot.setRange(
            xRange=(min(xs) - 0.5, max(xs) + 0.5), yRange=(min(ys) - 0.5, max(ys) + 0.5), padding=0
        )
        return
    for axis, given, log in (
        ("x", panel.x_range, panel.log_x),
        ("y", panel.y_range, panel.log_y),
    ):
        found = given or _data_range(panel, axis == "x", log)
        if found is None:
            continue
        lo, hi = (_log(found[0], log), _log(found[1], log))
        if math.isfinite(lo) and math.isfinite(hi):
            if axis == "x":
                plot.setXRange(lo, hi, padding=0)
            else:
                plot.setYRange(lo, hi, padding=0)


def _data_range(panel: Panel, along_x: bool, log: bool) -> tuple[float, float] | None:
    values = [
        v
        for s in panel.series
        for v in (s.x if along_x else s.y)
        if math.isfinite(v) and (v > 0 or not log)
    ]
    if not along_x:
        values += [v for b in panel.bands if not b.vertical for v in (b.low, b.high)]
    if not values:
        return None
    return padded(min(values), max(values), log=log)
