"""A live plot's pyqtgraph frame: the plot widget, the crosshair, the y range and the readout.

The widget is set up for cheap redraws; the y range is fitted to values (zero included); the
readout lists the visible curves' values at the pointer's time.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtCore import Qt

from pairbench.domain.metrics import metric_resolution
from pairbench.domain.units import Scale, format_value
from pairbench.ui.plotting.curves import Curve
from pairbench.ui.plotting.intervals import is_aggregate
from pairbench.ui.plotting.time_axis import TimeAxis, clock_text

MAX_READOUT_CURVES = 6
MIN_PLOT_HEIGHT = 120  # px: below this a plot reads as a strip
READOUT_STEP_S = 0.1  # the pointer's time to a tenth of a second ("1.2 s"; "1:05" from 60 s)


def plot_widget() -> pg.PlotWidget:
    """A white plot with a time axis, no menus, buttons or grid, auto downsampling (peak) and
    clip-to-view, its range set by the owner (no auto range) and a 64 px left axis."""
    # No context menus (the run's toolbar has Follow and Show all): building pyqtgraph's
    # view-box menu was a quarter of a plot's construction time.
    widget = pg.PlotWidget(
        viewBox=pg.ViewBox(enableMenu=False), axisItems={"bottom": TimeAxis("bottom")}
    )
    widget.setBackground("w")
    widget.setMinimumHeight(MIN_PLOT_HEIGHT)
    plot_item: pg.PlotItem = widget.getPlotItem()
    plot_item.setDownsampling(auto=True, mode="peak")
    plot_item.setClipToView(True)
    # No grid: pyqtgraph's axis grid made each repaint 4-6 times dearer (8-12 ms instead
    # of ~2 ms offscreen); the crosshair reads values more precisely anyway.
    plot_item.hideButtons()  # "follow" and "show all" live in the run's toolbar
    plot_item.setMenuEnabled(False)
    view_box: pg.ViewBox = plot_item.getViewBox()
    view_box.disableAutoRange()
    view_box.setRange(xRange=(0, 10), yRange=(0, 1), padding=0)
    for name in ("left", "bottom"):
        axis = plot_item.getAxis(name)
        axis.setPen(pg.mkPen("#444"))
        axis.setTextPen(pg.mkPen("#222"))
    left_axis: pg.AxisItem = plot_item.getAxis("left")
    left_axis.enableAutoSIPrefix(False)
    left_axis.setWidth(64)
    return widget


def crosshair(plot_item: pg.PlotItem) -> tuple[pg.InfiniteLine, pg.InfiniteLine]:
    """The crosshair's vertical and horizontal lines, hidden, above the curves."""
    pen = pg.mkPen(color="#888", width=1, style=Qt.PenStyle.DashLine)
    v_line = pg.InfiniteLine(angle=90, movable=False, pen=pen)
    h_line = pg.InfiniteLine(angle=0, movable=False, pen=pen)
    for line in (v_line, h_line):
        line.setVisible(False)
        line.setZValue(20)
        plot_item.addItem(line, ignoreBounds=True)
    return v_line, h_line


def fitted(extent: tuple[float, float]) -> tuple[float, float]:
    """A y range for values in ``extent``: zero included, a little room above and below."""
    low, high = min(0.0, extent[0]), max(0.0, extent[1])
    if high == low:
        high = low + 1.0
    span = high - low
    # A little room below zero keeps a flat-at-zero curve off the axis line.
    return low - span * 0.02, high + span * 0.08


def readout(
    curves: Iterable[Curve],
    x: float,
    y: float | None,
    *,
    primary: str,
    scale: Scale,
    right_scale: Scale,
) -> str:
    """The values of the visible curves nearest to time ``x`` ("sum first")."""
    parts = [clock_text(max(0.0, x), READOUT_STEP_S)]
    if y is not None:
        finest = metric_resolution(primary)
        parts.append(f"cursor {scale.format(y, finest=finest)}")
    shown = 0
    ordered = sorted(curves, key=lambda c: not is_aggregate(c.stream))
    for curve in ordered:
        if not curve.visible:
            continue
        found = curve.series.value_at(x)
        if found is None:
            continue
        if shown == MAX_READOUT_CURVES:
            parts.append("…")
            break
        curve_scale = right_scale if curve.secondary else scale
        parts.append(f"{curve.name} {format_value(curve.key[1], found[1], scale=curve_scale)}")
        shown += 1
    return "  │  ".join(parts)
