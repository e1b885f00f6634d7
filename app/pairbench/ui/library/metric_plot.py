"""One stored metric over time in a run's detail: a curve per stream ("sum" drawn thicker),
its axis in the unit vocabulary's scale, named in the measuring tool's words."""

from __future__ import annotations

import numpy as np

# isort: split
import pyqtgraph as pg  # after PySide6 (DESIGN §2)

from pairbench.domain.metrics import metric_label
from pairbench.domain.units import range_scale
from pairbench.services.run_browser import SeriesArrays

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
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

    def __init__(self, metric: str, series: list[SeriesArrays], tool: str = "") -> None:
        super().__init__(background="w")
        self.metric = metric
        unit = series[0].unit if series else ""
        # The axis in the unit vocabulary's scale for these values (Gbit/s, MiB/s, ms).
        scale = range_scale(unit, (_max_abs(one.v) for one in series))
        factor = scale.factor
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
        if len(series) > 1:
            item.addLegend(offset=(-10, 10), labelTextColor="#202020")
        self.curves: dict[str, pg.PlotDataItem] = {}
        top = 0.0
        for index, one in enumerate(series):
            is_sum = one.stream == "sum"
            color = "#202020" if is_sum else _COLORS[index % len(_COLORS)]
            pen = pg.mkPen(color, width=2 if is_sum else 1.3)
            values = np.asarray(one.v * factor if factor != 1.0 else one.v)
            dots: dict[str, object] = {}
            if len(one.t) <= FEW_POINTS:  # a line needs two points; a summary-only job has one
                dots = {"symbol": "o", "symbolSize": 6, "symbolBrush": color, "symbolPen": None}
            curve = item.plot(
                np.asarray(one.t), values, pen=pen, name=one.stream, skipFiniteCheck=True, **dots
            )
            self.curves[one.stream] = curve
            finite = values[np.isfinite(values)]
            if len(finite):
                top = max(top, float(finite.max()))
                if float(finite.min()) < 0:
                    top = float("nan")  # negative values: let pyqtgraph choose
        item.enableAutoRange(axis="x")
        if top > 0:  # rates, counts and times read best from zero (a flat line too)
            item.setYRange(0.0, top * 1.08, padding=0)
        else:
            item.enableAutoRange(axis="y")
