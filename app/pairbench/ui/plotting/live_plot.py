"""One live plot: curves fed from growable buffers, redrawn on demand, scaled units, a crosshair.

A ``LivePlot`` draws nothing by itself when data arrives: ``append`` only fills buffers and
marks the plot dirty; the owner (``RunPlots``) calls ``refresh`` from a ~10 Hz timer, which
hands pyqtgraph views of the buffers (``setData(..., skipFiniteCheck=True)``) for the curves
that changed. Auto downsampling (peak) and clip-to-view keep a 24-hour run cheap to draw.

The legend sits beside the data (``legend.place_legend``); a click on an entry's swatch or
name hides or shows its curve and the y axis fits what is still shown. Per-stream curves are
drawn up to the owner's ``horizon`` (the newest total, see ``intervals``); a partial last
interval is a hollow circle, not joined to its curve, and the plot says so under its title.
A plot spec's ``secondary`` metrics get a right-hand axis of their own.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from pairbench.domain.units import Scale, scale_for
from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.curves import (
    PALETTE,
    REVERSE_SUM_COLOR,
    SUM_COLOR,
    Curve,
    curve_pen,
    partial_marker,
    stream_color,
)
from pairbench.ui.plotting.intervals import is_aggregate, usual_spacing
from pairbench.ui.plotting.layout import INSTANT_METRICS, PlotSpec, curve_name
from pairbench.ui.plotting.legend import place_legend
from pairbench.ui.plotting.plot_frame import crosshair, fitted, plot_widget, readout
from pairbench.ui.plotting.plot_header import PlotHeader
from pairbench.ui.plotting.right_axis import RightAxis

__all__ = ["PALETTE", "REVERSE_SUM_COLOR", "SUM_COLOR", "Curve", "LivePlot"]

AUTO_DOWNSAMPLE_FACTOR = 1.0


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
        self._right: RightAxis | None = None  # built with the first secondary curve
        self._dirty = False
        self._horizon: float | None = None
        self._stream_colors = stream_colors if stream_colors is not None else {}

        self.header = PlotHeader(spec.title)
        self.title_label = self.header.title_label
        self.readout = self.header.readout
        self.note = self.header.note

        self.widget = plot_widget()
        self.plot_item: pg.PlotItem = self.widget.getPlotItem()
        self.view_box: pg.ViewBox = self.plot_item.getViewBox()
        self.left_axis: pg.AxisItem = self.plot_item.getAxis("left")
        self._apply_scale(self.scale)
        self.legend = place_legend(self.plot_item, labelTextColor="#222", labelTextSize="8pt")
        self.legend.sigSampleClicked.connect(self._legend_clicked)
        # Legend and axes repaint from a pixmap unless they changed: every curve update
        # repaints the whole view, and replaying their text cost more than the curves
        # (a tab of 3 plots: ~21 ms per redraw without the cache, ~9 ms with it).
        for cached in (self.legend, self.left_axis, self.plot_item.getAxis("bottom")):
            cached.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

        self.v_line, self.h_line = crosshair(self.plot_item)
        self._mouse_proxy = pg.SignalProxy(
            self.widget.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved
        )
        self.view_box.sigRangeChangedManually.connect(lambda *_: self.userRangeChanged.emit())

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.widget, 1)

    @property
    def right_box(self) -> pg.ViewBox | None:
        """The view box of the secondary metrics (None until the first one arrives)."""
        return self._right.box if self._right is not None else None

    @property
    def right_axis(self) -> pg.AxisItem | None:
        return self._right.axis if self._right is not None else None

    @property
    def right_scale(self) -> Scale:
        return self._right.scale if self._right is not None else self.scale

    def _right_box(self) -> pg.ViewBox:
        if self._right is None:
            self._right = RightAxis(
                self.plot_item, self.view_box, self.spec.unit, self.spec.secondary_label
            )
        return self._right.box

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
        name = curve_name(self.spec, stream, metric)
        secondary = metric in self.spec.secondary
        color = stream_color(stream, self._stream_colors)
        pen = curve_pen(stream, color, dashed=metric != self.spec.primary)
        item = pg.PlotDataItem(name=name, pen=pen, skipFiniteCheck=True)
        item.setDownsampling(auto=True, method="peak")
        # pyqtgraph keeps ~5 samples per pixel by default; peak (min/max) downsampling at one
        # bin per pixel already draws every extreme, and each segment drawn costs: a day of
        # 1 s samples on 8 streams redraws in ~8 ms instead of ~15 (bench plot_redraw).
        item.opts["autoDownsampleFactor"] = AUTO_DOWNSAMPLE_FACTOR
        item.setClipToView(True)
        marker = partial_marker(color)
        # Aggregates drawn over per-stream curves.
        for drawn in (item, marker):
            drawn.setZValue(10 if is_aggregate(stream) else 0)
        if secondary:
            box = self._right_box()
            box.addItem(item)
            box.addItem(marker)
            self.legend.addItem(item, name)
        else:
            box = self.view_box
            self.plot_item.addItem(item)  # named: the legend lists it
            self.plot_item.addItem(marker)
        intervals = metric not in INSTANT_METRICS
        curve = Curve((stream, metric), name, series, item, marker, box, secondary, intervals)
        self.curves[(stream, metric)] = curve
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

    def set_horizon(self, horizon: float | None) -> None:
        """Draw per-stream curves up to ``horizon`` (None: all they have), see ``intervals``."""
        if horizon != self._horizon:
            self._horizon = horizon
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
        """Hand changed buffers to pyqtgraph and rescale the axes; True if anything changed."""
        if not self._dirty:
            return False
        self._dirty = False
        for curve in self.curves.values():
            curve.draw(self._horizon)
        self._update_note()
        main = [c.series.max_abs for c in self.curves.values() if not c.secondary]
        scale = scale_for(self.spec.unit, max(main, default=0.0))
        if scale != self.scale:
            self._apply_scale(scale)
        if self._right is not None:
            right = [c.series.max_abs for c in self.curves.values() if c.secondary]
            self._right.rescale(max(right, default=0.0))
        return True

    def _update_note(self) -> None:
        partial = [c for c in self.curves.values() if c.partial_s is not None and c.visible]
        if not partial:
            self.header.set_note("")
            return
        curve = partial[0]
        assert curve.partial_s is not None
        usual = usual_spacing(curve.series.t[: curve.drawn_n])
        of = f" of {usual:.3g} s" if usual is not None else ""
        self.header.set_note(f"○ last interval {curve.partial_s:.2g} s{of}: partial, not joined")

    def _apply_scale(self, scale: Scale) -> None:
        self.scale = scale
        self.left_axis.setScale(scale.factor)
        self.left_axis.setLabel(text=scale.unit or None)

    def y_extent(
        self, t_lo: float, t_hi: float, *, secondary: bool = False
    ) -> tuple[float, float] | None:
        """Min and max of the drawn, visible values with ``t_lo <= t <= t_hi`` on the main
        axis (or, ``secondary``, on the right-hand one)."""
        lows: list[float] = []
        highs: list[float] = []
        for curve in self.curves.values():
            extent = curve.extent(t_lo, t_hi)
            if curve.secondary == secondary and curve.visible and extent is not None:
                lows.append(extent[0])
                highs.append(extent[1])
        for item in () if secondary else self.overlays:
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
        """Set the y range(s) to the visible data in [t_lo, t_hi], always including zero."""
        extent = self.y_extent(t_lo, t_hi)
        if extent is not None:
            self.view_box.setYRange(*fitted(extent), padding=0)
        if self.right_box is not None:
            right = self.y_extent(t_lo, t_hi, secondary=True)
            if right is not None:
                self.right_box.setYRange(*fitted(right), padding=0)

    def fit_y_to_view(self) -> None:
        """Fit y to the visible curves over the x range in view."""
        low, high = self.view_box.viewRange()[0]
        self.fit_y(low, high)

    def _legend_clicked(self, item: object) -> None:
        for curve in self.curves.values():
            if curve.item is item:
                curve.marker.setVisible(curve.partial_s is not None and curve.visible)
        self._update_note()
        self.fit_y_to_view()
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

    def leaveEvent(self, event: QEvent) -> None:
        """The pointer left the plot: the crosshair goes, the partial note comes back."""
        super().leaveEvent(event)
        self.hide_cursor()
        self.cursorMoved.emit(None)

    def show_cursor(self, x: float, y: float | None = None) -> None:
        """Draw the crosshair at (x, y) (y None: the vertical line only) and list the values."""
        self.v_line.setPos(x)
        self.v_line.setVisible(True)
        if y is None:
            self.h_line.setVisible(False)
        else:
            self.h_line.setPos(y)
            self.h_line.setVisible(True)
        self.header.set_reading(self.readout_text(x, y))

    def hide_cursor(self) -> None:
        self.v_line.setVisible(False)
        self.h_line.setVisible(False)
        self.header.set_reading("")

    def readout_text(self, x: float, y: float | None = None) -> str:
        """The values of the visible curves nearest to time ``x`` ("sum first")."""
        return readout(
            self.curves.values(),
            x,
            y,
            primary=self.spec.primary,
            scale=self.scale,
            right_scale=self.right_scale,
        )

    def colors(self) -> dict[str, QColor]:
        """Each curve's pen colour by legend name (for tests and exports)."""
        return {c.name: c.item.opts["pen"].color() for c in self.curves.values()}
