"""One stored metric over time in a run's detail: a curve per stream ("sum" drawn thicker),
its axis in the unit vocabulary's scale, named in the measuring tool's words.

The live plots' rules hold here too: one colour per stream across the run's plots (a shared
``stream_colors`` map, see ``plotting.curves``), the legend beside the data with entries that
hide or show a curve from their name as well as their swatch, the y axis fitted to the curves
still shown, and a partial last interval drawn as a hollow circle, not joined (``intervals``).
"""

from __future__ import annotations

import numpy as np

# isort: split
import pyqtgraph as pg  # after PySide6 (DESIGN §2)

from pairbench.domain.metrics import metric_label
from pairbench.domain.units import range_scale
from pairbench.services.run_browser import SeriesArrays
from pairbench.ui.plotting.curves import partial_marker, stream_color
from pairbench.ui.plotting.intervals import is_aggregate, partial_last
from pairbench.ui.plotting.layout import INSTANT_METRICS, stream_name
from pairbench.ui.plotting.legend import place_legend

PLOT_HEIGHT = 210
FEW_POINTS = 40  # up to this many samples, each is drawn as a dot too


def without_copied_sum(group: list[SeriesArrays]) -> list[SeriesArrays]:
    """Drop a "sum" that only repeats the single stream it sums (one curve, not two)."""
    sums = [one for one in group if one.stream == "sum"]
    others = [one for one in group if one.stream != "sum"]
    if len(sums) == 1 and len(others) == 1:
        total, single = sums[0], others[0]
        if np.array_equal(total.t, single.t) and np.array_equal(total.v, single.v):
            return others
    return group


def _max_abs(values: np.ndarray) -> float:
    """The largest finite magnitude of ``values`` (0.0 when none is finite)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


class MetricPlot(pg.PlotWidget):
    """One metric over time, a curve per stream ("sum" drawn thicker)."""

    def __init__(
        self,
        metric: str,
        series: list[SeriesArrays],
        tool: str = "",
        *,
        stream_colors: dict[str, int] | None = None,
    ) -> None:
        """``stream_colors`` (stream → palette slot), shared by a run's plots, gives a stream
        the same colour in each."""
        super().__init__(background="w")
        self.metric = metric
        colors = stream_colors if stream_colors is not None else {}
        unit = series[0].unit if series else ""
        # The axis in the unit vocabulary's scale for these values (Gbit/s, MiB/s, ms).
        scale = range_scale(unit, (_max_abs(one.v) for one in series))
        self.factor = factor = scale.factor
        title = metric_label(metric, tool)
        self.setMinimumHeight(PLOT_HEIGHT)
        self.setMaximumHeight(PLOT_HEIGHT + 60)
        item = self.getPlotItem()
        item.setTitle(title, size="10pt", color="#202020")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen("#606060")
            item.getAxis(axis).setTextPen("#303030")
        item.getAxis("left").setWidth(72)  # the same for every plot: their x axes line up
        if scale.unit:
            item.setLabel("left", scale.unit)
        item.setLabel("bottom", "time since start", units="s")
        self.legend = place_legend(item, labelTextColor="#202020") if len(series) > 1 else None
        if self.legend is not None:
            self.legend.sigSampleClicked.connect(self._legend_clicked)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.markers: dict[str, pg.ScatterPlotItem] = {}  # partial last intervals
        for one in series:
            color = stream_color(one.stream, colors)
            pen = pg.mkPen(color, width=2 if is_aggregate(one.stream) else 1.3)
            t = np.asarray(one.t)
            values = np.asarray(one.v * factor if factor != 1.0 else one.v)
            marker = partial_marker(color)
            if metric not in INSTANT_METRICS and partial_last(t) is not None:
                marker.setData([float(t[-1])], [float(values[-1])])
                marker.setVisible(True)
                t, values = t[:-1], values[:-1]
            dots: dict[str, object] = {}
            if len(t) <= FEW_POINTS:  # a line needs two points; a summary-only job has one
                dots = {"symbol": "o", "symbolSize": 6, "symbolBrush": color, "symbolPen": None}
            curve = item.plot(
                t, values, pen=pen, name=stream_name(one.stream), skipFiniteCheck=True, **dots
            )
            if is_aggregate(one.stream):
                curve.setZValue(10)
                marker.setZValue(10)
            item.addItem(marker)
            self.curves[one.stream] = curve
            self.markers[one.stream] = marker
        item.enableAutoRange(axis="x")
        self.fit_y()

    def fit_y(self) -> None:
        """The y range of the curves shown (from zero for positive values)."""
        item = self.getPlotItem()
        top = 0.0
        for stream, curve in self.curves.items():
            if not curve.isVisible():
                continue
            _t, values = curve.getOriginalDataset()
            parts = [np.asarray(values if values is not None else [], dtype=np.float64)]
            marker = self.markers[stream]
            if marker.isVisible():
                parts.append(np.asarray(marker.data["y"], dtype=np.float64))
            joined = np.concatenate(parts)
            finite = joined[np.isfinite(joined)]
            if len(finite):
                top = max(top, float(finite.max()))
                if float(finite.min()) < 0:
                    top = float("nan")  # negative values: let pyqtgraph choose
        if top > 0:  # rates, counts and times read best from zero (a flat line too)
            item.setYRange(0.0, top * 1.08, padding=0)
        else:
            item.enableAutoRange(axis="y")

    def _legend_clicked(self, toggled: pg.PlotDataItem) -> None:
        for stream, curve in self.curves.items():
            if curve is toggled:
                marker = self.markers[stream]
                marker.setVisible(curve.isVisible() and len(marker.data) > 0)
        self.fit_y()
