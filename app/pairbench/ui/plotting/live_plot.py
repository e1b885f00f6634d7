"""One live plot: curves fed from growable buffers, redrawn on demand, scaled units, a crosshair.

A ``LivePlot`` draws nothing by itself when data arrives: ``append`` only fills buffers and
marks the plot dirty; the owner (``RunPlots``) calls ``refresh`` from a ~10 Hz timer, which
hands pyqtgraph views of the buffers (``setData(..., skipFiniteCheck=True)``) for the curves
that changed. Auto downsampling (peak) and clip-to-view keep a 24-hour run cheap to draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.units import Scale, scale_for
from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.layout import PlotSpec, curve_name
from pairbench.ui.plotting.time_axis import TimeAxis, clock_text

# A qualitative palette readable on white (Tableau 10 without its grey).
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#bcbd22", "#17becf",
)  # fmt: skip
SUM_COLOR = "#202020"
REVERSE_SUM_COLOR = "#a01010"
MAX_READOUT_CURVES = 6
AUTO_DOWNSAMPLE_FACTOR = 1.0


@dataclass
class Curve:
    """A drawn series: its buffer, its pyqtgraph item and the buffer version last drawn."""

    key: tuple[str, str]  # (stream, metric)
    name: str
    series: GrowableSeries
    item: pg.PlotDataItem
    drawn_version: int = -1

    @property
    def visible(self) -> bool:
        return bool(self.item.isVisible())


def _pen(stream: str, metric: str, primary: str, index: int) -> QPen:
    if stream == "sum":
        color, width = SUM_COLOR, 2.0
    elif stream.startswith("sum"):
        color, width = REVERSE_SUM_COLOR, 2.0
    else:
        color, width = PALETTE[index % len(PALETTE)], 1.0
    pen: QPen = pg.mkPen(color=color, width=width)
    if metric != primary:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


class LivePlot(QWidget):
    """A titled plot of one unit (throughput, RTT...) with one curve per (stream, metric)."""

    cursorMoved = Signal(object)  # x in seconds, or None when the pointer left
    userRangeChanged = Signal()  # the user zoomed or panned
    legendToggled = Signal()  # a curve was shown or hidden from the legend

    def __init__(
        self,
        spec: PlotSpec,
        parent: QWidget | None = None,
        *,
        stream_colors: dict[str, int] | None = None,
    ) -> None:
        """``stream_colors`` (stream → palette index) may be shared by the plots of a run, so
        a stream has the same colour in each."""
        super().__init__(parent)
        self.spec = spec
        self.curves: dict[tuple[str, str], Curve] = {}
        # Fixed curves drawn with the live ones (a pinned baseline): counted when fitting y.
        self.overlays: list[pg.PlotDataItem] = []
        self.scale: Scale = scale_for(spec.unit, 0.0)
        self._dirty = False
        self._stream_colors = stream_colors if stream_colors is not None else {}

        self.title_label = QLabel(spec.title)
        font = QFont(self.title_label.font())
        font.setBold(True)
        self.title_label.setFont(font)
        self.readout = QLabel("")
        self.readout.setTextFormat(Qt.TextFormat.PlainText)
        self.readout.setStyleSheet("color: #555;")
        self.readout.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        # No context menus (the run's toolbar has Follow and Show all): building pyqtgraph's
        # view-box menu was a quarter of a plot's construction time.
        self.widget = pg.PlotWidget(
            viewBox=pg.ViewBox(enableMenu=False), axisItems={"bottom": TimeAxis("bottom")}
        )
        self.widget.setBackground("w")
        self.widget.setMinimumHeight(140)
        self.plot_item: pg.PlotItem = self.widget.getPlotItem()
        self.view_box: pg.ViewBox = self.plot_item.getViewBox()
        self.plot_item.setDownsampling(auto=True, mode="peak")
        self.plot_item.setClipToView(True)
        # No grid: pyqtgraph's axis grid made each repaint 4-6 times dearer (8-12 ms instead
        # of ~2 ms offscreen); the crosshair reads values more precisely anyway.
        self.plot_item.hideButtons()  # "follow" and "show all" live in the run's toolbar
        self.plot_item.setMenuEnabled(False)
        self.view_box.disableAutoRange()
        self.view_box.setRange(xRange=(0, 10), yRange=(0, 1), padding=0)
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.setPen(pg.mkPen("#444"))
            axis.setTextPen(pg.mkPen("#222"))
        self.left_axis: pg.AxisItem = self.plot_item.getAxis("left")
        self.left_axis.enableAutoSIPrefix(False)
        self.left_axis.setWidth(64)
        self._apply_scale(self.scale)
        self.legend = self.plot_item.addLegend(
            offset=(6, 2),
            labelTextColor="#222",
            labelTextSize="8pt",
            brush=pg.mkBrush(255, 255, 255, 150),
            verticalSpacing=-6,
        )
        self.legend.setColumnCount(1)
        self.legend.sigSampleClicked.connect(self._legend_clicked)
        # Legend and axes repaint from a pixmap unless they changed: every curve update
        # repaints the whole view, and replaying their text cost more than the curves
        # (a tab of 3 plots: ~21 ms per redraw without the cache, ~9 ms with it).
        for cached in (self.legend, self.left_axis, self.plot_item.getAxis("bottom")):
            cached.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

        pen = pg.mkPen(color="#888", width=1, style=Qt.PenStyle.DashLine)
        self.v_line = pg.InfiniteLine(angle=90, movable=False, pen=pen)
        self.h_line = pg.InfiniteLine(angle=0, movable=False, pen=pen)
        for line in (self.v_line, self.h_line):
            line.setVisible(False)
            line.setZValue(20)
            self.plot_item.addItem(line, ignoreBounds=True)
        self._mouse_proxy = pg.SignalProxy(
            self.widget.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved
        )
        self.view_box.sigRangeChangedManually.connect(lambda *_: self.userRangeChanged.emit())

        header = QHBoxLayout()
        header.setContentsMargins(4, 0, 4, 0)
        header.addWidget(self.title_label)
        header.addWidget(self.readout, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.widget, 1)

    # -- data ------------------------------------------------------------------------------

    def series(self, stream: str, metric: str) -> GrowableSeries:
        """The buffer of (stream, metric), created with its curve on first use."""
        curve = self.curves.get((stream, metric))
        if curve is None:
            curve = self._add_curve(stream, metric, GrowableSeries())
        return curve.series

    def attach(self, stream: str, metric: str, series: GrowableSeries) -> None:
        """Draw an existing buffer as the curve of (stream, metric)."""
        if (stream, metric) not in self.curves:
            self._add_curve(stream, metric, series)
            self._dirty = True

    def _add_curve(self, stream: str, metric: str, series: GrowableSeries) -> Curve:
        if stream not in self._stream_colors:
            self._stream_colors[stream] = sum(
                1 for s in self._stream_colors if not s.startswith("sum")
            )
        name = curve_name(self.spec, stream, metric)
        pen = _pen(stream, metric, self.spec.primary, self._stream_colors[stream])
        item = pg.PlotDataItem(name=name, pen=pen, skipFiniteCheck=True)
        item.setDownsampling(auto=True, method="peak")
        # pyqtgraph keeps ~5 samples per pixel by default; peak (min/max) downsampling at one
        # bin per pixel already draws every extreme, and each segment drawn costs: a day of
        # 1 s samples on 8 streams redraws in ~8 ms instead of ~15 (bench plot_redraw).
        item.opts["autoDownsampleFactor"] = AUTO_DOWNSAMPLE_FACTOR
        item.setClipToView(True)
        # Aggregates drawn over per-stream curves.
        item.setZValue(10 if stream.startswith("sum") else 0)
        self.plot_item.addItem(item)
        curve = Curve((stream, metric), name, series, item)
        self.curves[(stream, metric)] = curve
        if len(self.curves) > 8:
            self.legend.setColumnCount(math.ceil(len(self.curves) / 8))
        return curve

    def append(self, stream: str, metric: str, t: float, v: float) -> None:
        """Add one sample (drawn at the next ``refresh``)."""
        self.series(stream, metric).append(t, v)
        self._dirty = True

    def extend(self, stream: str, metric: str, t: np.ndarray, v: np.ndarray) -> None:
        """Add many samples (drawn at the next ``refresh``)."""
        self.series(stream, metric).extend(t, v)
        self._dirty = True

    def add_overlay(self, item: pg.PlotDataItem) -> None:
        """Draw a fixed curve (raw values, on the live curves' axis scale) that y fitting sees."""
        self.plot_item.addItem(item)
        self.overlays.append(item)
        self._dirty = True

    def remove_overlay(self, item: pg.PlotDataItem) -> None:
        if item in self.overlays:
            self.overlays.remove(item)
            self.plot_item.removeItem(item)
            self._dirty = True

    def mark_dirty(self) -> None:
        self._dirty = True

    @property
    def dirty(self) -> bool:
        return self._dirty

    def t_max(self) -> float:
        """The latest time of any curve (0 when empty)."""
        latest = [c.series.t[-1] for c in self.curves.values() if c.series.n]
        return float(max(latest)) if latest else 0.0

    def sample_count(self) -> int:
        return sum(c.series.n for c in self.curves.values())

    # -- drawing ---------------------------------------------------------------------------

    def refresh(self) -> bool:
        """Hand changed buffers to pyqtgraph and rescale the axis; True if anything changed."""
        if not self._dirty:
            return False
        self._dirty = False
        for curve in self.curves.values():
            series = curve.series
            if curve.drawn_version == series.version:
                continue
            curve.drawn_version = series.version
            if series.finite:
                curve.item.setData(series.t, series.v, skipFiniteCheck=True)
            else:  # a NaN or infinity arrived: let pyqtgraph leave gaps there
                curve.item.setData(series.t, series.v, skipFiniteCheck=False, connect="finite")
        max_abs = max((c.series.max_abs for c in self.curves.values()), default=0.0)
        scale = scale_for(self.spec.unit, max_abs)
        if scale != self.scale:
            self._apply_scale(scale)
        return True

    def _apply_scale(self, scale: Scale) -> None:
        self.scale = scale
        self.left_axis.setScale(scale.factor)
        self.left_axis.setLabel(text=scale.unit or None)

    def y_extent(self, t_lo: float, t_hi: float) -> tuple[float, float] | None:
        """Min and max of the visible curves' values with ``t_lo <= t <= t_hi``."""
        lows: list[float] = []
        highs: list[float] = []
        for curve in self.curves.values():
            if not curve.visible or curve.series.n == 0:
                continue
            t, v = curve.series.t, curve.series.v
            i0 = int(np.searchsorted(t, t_lo, side="left"))
            i1 = int(np.searchsorted(t, t_hi, side="right"))
            if i1 <= i0:
                continue
            part = v[i0:i1]
            if not curve.series.finite:
                part = part[np.isfinite(part)]
                if part.size == 0:
                    continue
            lows.append(float(part.min()))
            highs.append(float(part.max()))
        for item in self.overlays:
            t, v = item.getOriginalDataset()
            if not item.isVisible() or t is None or v is None:
                continue
            part = v[(t >= t_lo) & (t <= t_hi) & np.isfinite(v)]
            if part.size:
                lows.append(float(part.min()))
                highs.append(float(part.max()))
        if not lows:
            return None
        return min(lows), max(highs)

    def fit_y(self, t_lo: float, t_hi: float) -> None:
        """Set the y range to the data in [t_lo, t_hi], always including zero."""
        extent = self.y_extent(t_lo, t_hi)
        if extent is None:
            return
        low, high = min(0.0, extent[0]), max(0.0, extent[1])
        if high == low:
            high = low + 1.0
        span = high - low
        # A little room below zero keeps a flat-at-zero curve off the axis line.
        self.view_box.setYRange(low - span * 0.02, high + span * 0.08, padding=0)

    def _legend_clicked(self, _item: object) -> None:
        self._dirty = True
        self.legendToggled.emit()

    # -- crosshair -------------------------------------------------------------------------

    def _mouse_moved(self, event: tuple[QPointF]) -> None:
        pos = event[0]
        if not self.plot_item.sceneBoundingRect().contains(pos) or not self.curves:
            self.hide_cursor()
            self.cursorMoved.emit(None)
            return
        point = self.view_box.mapSceneToView(pos)
        self.show_cursor(point.x(), point.y())
        self.cursorMoved.emit(point.x())

    def show_cursor(self, x: float, y: float | None = None) -> None:
        """Draw the crosshair at (x, y) (y None: the vertical line only) and list the values."""
        self.v_line.setPos(x)
        self.v_line.setVisible(True)
        if y is None:
            self.h_line.setVisible(False)
        else:
            self.h_line.setPos(y)
            self.h_line.setVisible(True)
        self.readout.setText(self.readout_text(x, y))

    def hide_cursor(self) -> None:
        self.v_line.setVisible(False)
        self.h_line.setVisible(False)
        self.readout.setText("")

    def readout_text(self, x: float, y: float | None = None) -> str:
        """The values of the visible curves nearest to time ``x`` ("sum first")."""
        parts = [clock_text(max(0.0, x), 1.0)]
        if y is not None:
            parts.append(f"cursor {self.scale.format(y)}")
        shown = 0
        ordered = sorted(self.curves.values(), key=lambda c: not c.key[0].startswith("sum"))
        for curve in ordered:
            if not curve.visible:
                continue
            found = curve.series.value_at(x)
            if found is None:
                continue
            if shown == MAX_READOUT_CURVES:
                parts.append("…")
                break
            parts.append(f"{curve.name} {self.scale.format(found[1])}")
            shown += 1
        return "  │  ".join(parts)

    def colors(self) -> dict[str, QColor]:
        """Each curve's pen colour by legend name (for tests and exports)."""
        return {c.name: c.item.opts["pen"].color() for c in self.curves.values()}
