"""The summary plot of a comparison chart: each group's mean with its CI whiskers, as a bar
with them, or as a box plot of its runs; kept runs as dots beside it, discarded ones as
crosses."""

from __future__ import annotations

from html import escape  # pyqtgraph labels read their text as HTML

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from pairbench.export.charts import ChartSpec, SummaryPoint, SummaryStyle

FOREGROUND = "#222222"
FOOTER = "#555555"


def style_plot(plot: pg.PlotItem, x_label: str, y_label: str) -> None:
    """Axes, grid and labels in the charts' colours."""
    plot.showGrid(x=True, y=True, alpha=0.15)
    plot.setLabel("bottom", escape(x_label), color=FOREGROUND)
    plot.setLabel("left", escape(y_label), color=FOREGROUND)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(FOREGROUND)
        axis.setTextPen(FOREGROUND)
        axis.enableAutoSIPrefix(False)
        axis.setStyle(maxTickLevel=1)  # major and minor grid lines; a third level cost 2x
    plot.setMenuEnabled(False)


def draw_summary(plot: pg.PlotItem, spec: ChartSpec) -> None:
    """The summary plot: a group per x position, drawn in the spec's style."""
    style_plot(plot, "", spec.y_label)
    plot.setTitle(escape(spec.summary_title), color=FOOTER, size="9pt")
    points = spec.points
    plot.getAxis("bottom").setTicks([[(i, p.label) for i, p in enumerate(points)]])
    lows: list[float] = []
    highs: list[float] = []
    for i, point in enumerate(points):
        if spec.summary_style is SummaryStyle.BOX and point.box is not None:
            _draw_box(plot, i, point, point.box)
        else:
            _draw_point(plot, i, point, bar=spec.summary_style is SummaryStyle.BARS)
        everything = [point.mean, *point.values, *point.discarded]
        if spec.summary_style is SummaryStyle.BARS:
            everything.append(0.0)
        if point.low is not None and point.high is not None:
            everything += [point.low, point.high]
        lows.append(min(everything))
        highs.append(max(everything))
    if points:
        lo, hi = min(lows), max(highs)
        pad = (hi - lo) * 0.12 or abs(hi) * 0.05 or 1.0
        bottom = 0.0 if spec.summary_style is SummaryStyle.BARS and lo >= 0 else lo - pad
        plot.setRange(xRange=(-0.6, len(points) - 0.4), yRange=(bottom, hi + pad), padding=0)
    plot.setMouseEnabled(x=False, y=True)


def _draw_point(plot: pg.PlotItem, x: int, point: SummaryPoint, *, bar: bool = False) -> None:
    color = QColor(point.color)
    if bar:
        fill = QColor(color)
        fill.setAlpha(90)
        plot.addItem(
            pg.BarGraphItem(
                x=[float(x)], height=[point.mean], width=0.5, brush=fill, pen=pg.mkPen(color)
            )
        )
    if point.low is not None and point.high is not None:
        plot.addItem(
            pg.ErrorBarItem(
                x=np.array([x], dtype=float),
                y=np.array([point.mean]),
                top=np.array([point.high - point.mean]),
                bottom=np.array([point.mean - point.low]),
                beam=0.18,
                pen=pg.mkPen(color, width=2),
            )
        )
    _runs(plot, x, point, color)
    plot.addItem(
        pg.ScatterPlotItem(
            x=[float(x)],
            y=[point.mean],
            symbol="o",
            size=11,
            useCache=False,
            pen=pg.mkPen(FOREGROUND, width=1),
            brush=pg.mkBrush(color),
        )
    )


def _draw_box(
    plot: pg.PlotItem, x: int, point: SummaryPoint, box: tuple[float, float, float, float, float]
) -> None:
    """A box from Q1 to Q3 with the median across it, whiskers to the furthest runs within
    1.5×IQR, the runs as dots beside it and the discarded ones as crosses."""
    low, q1, median, q3, high = box
    color = QColor(point.color)
    fill = QColor(color)
    fill.setAlpha(70)
    pen = pg.mkPen(color, width=2)
    plot.addItem(
        pg.BarGraphItem(x=[float(x)], y0=[q1], height=[q3 - q1], width=0.4, brush=fill, pen=pen)
    )
    for y in (median,):
        plot.addItem(pg.PlotCurveItem(x=[x - 0.2, x + 0.2], y=[y, y], pen=pg.mkPen(color, width=3)))
    for a, b in ((low, q1), (q3, high)):
        plot.addItem(pg.PlotCurveItem(x=[float(x), float(x)], y=[a, b], pen=pen))
    for y in (low, high):
        plot.addItem(pg.PlotCurveItem(x=[x - 0.1, x + 0.1], y=[y, y], pen=pen))
    _runs(plot, x, point, color)


RUN_SPREAD = 0.08  # the runs' dots spread this far either side of their group's x


def run_xs(x: float, n: int) -> np.ndarray:
    """Where a group's ``n`` run dots go: at its x, spread a little so they do not hide each
    other (never beside another group's)."""
    return x + (np.linspace(-RUN_SPREAD, RUN_SPREAD, n) if n > 1 else np.zeros(n))


def _runs(plot: pg.PlotItem, x: int, point: SummaryPoint, color: QColor) -> None:
    """The kept runs as dots and the discarded ones as crosses, at the group's x (under its
    mean's marker, which is drawn after them)."""
    n = len(point.values)
    if n:
        faded = QColor(color)
        faded.setAlpha(150)
        plot.addItem(
            pg.ScatterPlotItem(
                x=run_xs(x, n),
                y=np.array(point.values),
                symbol="o",
                size=6,
                useCache=False,
                pen=pg.mkPen(None),
                brush=pg.mkBrush(faded),
            )
        )
    if point.discarded:
        plot.addItem(
            pg.ScatterPlotItem(
                x=run_xs(x, len(point.discarded)),
                y=np.array(point.discarded),
                symbol="x",
                size=10,
                useCache=False,
                pen=pg.mkPen(color),
                brush=pg.mkBrush(color),
            )
        )
