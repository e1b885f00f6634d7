"""Curve styles shared by a run's plots: one colour per stream in every plot, totals in black.

A run's plots share one ``stream → palette index`` map (``stream_color``), so stream "5" is
the same colour in throughput, retransmits and congestion window, live and in the Library's
run detail; "sum" is always near-black and thicker, a reverse total dark red. A curve of a
plot's secondary metric (the sender's view, lost datagrams...) is dashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen

from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.intervals import drawn_count, is_aggregate, partial_last

# A qualitative palette readable on white (Tableau 10 without its grey).
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#bcbd22", "#17becf",
)  # fmt: skip
SUM_COLOR = "#202020"
REVERSE_SUM_COLOR = "#a01010"
PARTIAL_SYMBOL_SIZE = 9
PARTIAL_TIP = (
    "The tool's last interval was shorter than the others: its value is drawn as a "
    "hollow circle, not joined to the curve, so it does not read as a dip."
)


def stream_color(stream: str, colors: dict[str, int]) -> str:
    """The colour of ``stream``; a new stream takes the next palette slot in ``colors``."""
    if stream == "sum":
        return SUM_COLOR
    if is_aggregate(stream):
        return REVERSE_SUM_COLOR
    index = colors.get(stream)
    if index is None:
        index = colors[stream] = sum(1 for s in colors if not is_aggregate(s))
    return PALETTE[index % len(PALETTE)]


def curve_pen(stream: str, color: str, *, dashed: bool = False) -> QPen:
    """A cosmetic pen: totals 2 px, streams 1 px; ``dashed`` for a secondary metric."""
    pen: QPen = pg.mkPen(color=color, width=2.0 if is_aggregate(stream) else 1.0)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


def partial_marker(color: str) -> pg.ScatterPlotItem:
    """A hollow circle for a partial last interval: drawn, not joined to the curve."""
    marker = pg.ScatterPlotItem(
        symbol="o",
        size=PARTIAL_SYMBOL_SIZE,
        pen=pg.mkPen(color, width=1.5),
        brush=pg.mkBrush(255, 255, 255, 255),
    )
    marker.setVisible(False)
    return marker


@dataclass
class Curve:
    """A drawn series: its buffer, its line, its partial-interval marker, what was drawn."""

    key: tuple[str, str]  # (stream, metric)
    name: str
    series: GrowableSeries
    item: pg.PlotDataItem
    marker: pg.ScatterPlotItem
    box: Any  # the pg.ViewBox it is drawn in (the plot's, or the right-hand axis's)
    secondary: bool = False  # on the right-hand axis
    intervals: bool = True  # values over intervals (a short last one is partial), not instants
    drawn_n: int = -1  # samples handed to the line and marker at the last refresh
    partial_s: float | None = None  # the partial last interval's length, when there is one

    @property
    def visible(self) -> bool:
        return bool(self.item.isVisible())

    @property
    def stream(self) -> str:
        return self.key[0]

    def pen_color(self) -> str:
        return str(self.item.opts["pen"].color().name())

    def draw(self, horizon: float | None) -> bool:
        """Hand the buffer to pyqtgraph up to ``horizon`` (per-stream curves only; totals are
        drawn whole), a partial last interval as the hollow marker; False if unchanged."""
        series = self.series
        n = series.n if is_aggregate(self.stream) else drawn_count(series.t, horizon)
        if n == self.drawn_n:
            return False
        self.drawn_n = n
        t, v = series.t[:n], series.v[:n]
        self.partial_s = partial_last(t) if self.intervals else None
        if self.partial_s is not None:
            self.marker.setData([float(t[-1])], [float(v[-1])])
            t, v = t[:-1], v[:-1]
        self.marker.setVisible(self.partial_s is not None and self.visible)
        if series.finite:
            self.item.setData(t, v, skipFiniteCheck=True)
        else:  # a NaN or infinity arrived: let pyqtgraph leave gaps there
            self.item.setData(t, v, skipFiniteCheck=False, connect="finite")
        return True

    def extent(self, t_lo: float, t_hi: float) -> tuple[float, float] | None:
        """Min and max of the drawn finite values with ``t_lo <= t <= t_hi``, or None."""
        if self.drawn_n <= 0:
            return None
        t, v = self.series.t[: self.drawn_n], self.series.v[: self.drawn_n]
        i0 = int(np.searchsorted(t, t_lo, side="left"))
        i1 = int(np.searchsorted(t, t_hi, side="right"))
        if i1 <= i0:
            return None
        part = v[i0:i1]
        if not self.series.finite:
            part = part[np.isfinite(part)]
            if part.size == 0:
                return None
        return float(part.min()), float(part.max())
