"""A run detail's plots grouped by metric, and new samples of a run followed live put into the
plots already shown (no widget made again while the metrics, streams and axis scale stay)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from pairbench.domain.metrics import metric_order
from pairbench.domain.units import range_scale
from pairbench.services.run_browser import SeriesArrays
from pairbench.ui.library.metric_plot import FEW_POINTS, MetricPlot, without_copied_sum
from pairbench.ui.plotting.intervals import partial_last
from pairbench.ui.plotting.layout import INSTANT_METRICS


def plot_groups(series: list[SeriesArrays]) -> dict[str, list[SeriesArrays]]:
    """The series to draw, a plot per metric (in the vocabulary's order), empty ones left
    out and a "sum" that only repeats its single stream dropped."""
    by_metric: dict[str, list[SeriesArrays]] = defaultdict(list)
    for one in series:
        if len(one.t):
            by_metric[one.metric].append(one)
    return {metric: without_copied_sum(by_metric[metric]) for metric in metric_order(by_metric)}


def _max_abs(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


def _fits(plot: MetricPlot, group: list[SeriesArrays]) -> bool:
    """True when ``plot`` can show ``group`` as it is: the same streams and axis scale."""
    if [one.stream for one in group] != list(plot.curves):
        return False
    unit = group[0].unit if group else ""
    scale = range_scale(unit, (_max_abs(one.v) for one in group))
    return scale.factor == plot.factor


def update_plots(plots: list[MetricPlot], series: list[SeriesArrays]) -> bool:
    """Put ``series`` into ``plots`` in place; False (nothing changed) when they need other
    plots: another metric, stream or axis scale (the caller then makes them again)."""
    groups = plot_groups(series)
    if [plot.metric for plot in plots] != list(groups):
        return False
    if not all(_fits(plot, groups[plot.metric]) for plot in plots):
        return False
    for plot in plots:
        for one in groups[plot.metric]:
            curve, marker = plot.curves[one.stream], plot.markers[one.stream]
            t = np.asarray(one.t)
            values = np.asarray(one.v * plot.factor if plot.factor != 1.0 else one.v)
            if plot.metric not in INSTANT_METRICS and partial_last(t) is not None:
                marker.setData([float(t[-1])], [float(values[-1])])
                marker.setVisible(curve.isVisible())
                t, values = t[:-1], values[:-1]
            else:
                marker.setData([], [])
                marker.setVisible(False)
            if len(t) > FEW_POINTS and curve.opts.get("symbol") is not None:
                curve.setSymbol(None)  # many points: a line, no dots (as a stored run)
            curve.setData(t, values, skipFiniteCheck=True)
        plot.fit_y()
    return True
