"""A followed run's new samples go into the detail's plots in place (the same widgets) while
the metrics, streams and axis scale stay; another stream or scale asks for new plots."""

from __future__ import annotations

import numpy as np
from pytestqt.qtbot import QtBot

from pairbench.services.run_browser import SeriesArrays
from pairbench.services.team_follow import sample_count
from pairbench.ui.library.live_plots import plot_groups, update_plots
from pairbench.ui.library.metric_plot import FEW_POINTS, MetricPlot


def _series(stream: str, n: int, value: float = 2e9) -> SeriesArrays:
    t = np.arange(1, n + 1, dtype=np.float64)
    return SeriesArrays(stream, "throughput_bps", "bit/s", t, np.full(n, value))


def _plots(qtbot: QtBot, series: list[SeriesArrays]) -> list[MetricPlot]:
    plots = [MetricPlot(metric, group, "iperf3") for metric, group in plot_groups(series).items()]
    for plot in plots:
        qtbot.addWidget(plot)
    return plots


def test_new_samples_go_into_the_same_plots(qtbot: QtBot) -> None:
    first = [_series("sum", 5), _series("1", 5), _series("2", 5)]
    plots = _plots(qtbot, first)
    more = FEW_POINTS + 10
    grown = [_series("sum", more), _series("1", more), _series("2", more)]
    assert update_plots(plots, grown)
    [plot] = plots
    for one in grown:
        t, v = plot.curves[one.stream].getOriginalDataset()
        assert np.array_equal(t, one.t) and np.allclose(v, one.v * plot.factor)
        assert plot.curves[one.stream].opts["symbol"] is None  # many points: no dots
    assert sample_count(grown) == more


def test_another_stream_or_scale_needs_new_plots(qtbot: QtBot) -> None:
    plots = _plots(qtbot, [_series("sum", 5), _series("1", 5), _series("2", 5)])
    before = [plot.curves["sum"].getOriginalDataset()[0].copy() for plot in plots]
    third = [_series("sum", 6), _series("1", 6), _series("2", 6), _series("3", 6)]
    assert not update_plots(plots, third)
    slower = [_series(s, 6, value=2e6) for s in ("sum", "1", "2")]  # Mbit/s, not Gbit/s
    assert not update_plots(plots, slower)
    assert np.array_equal(plots[0].curves["sum"].getOriginalDataset()[0], before[0])
    assert not update_plots(plots, [])  # no series left to draw: not these plots
    assert sample_count([]) == 0
