"""Every plot names the unit of the numbers it draws: stored-run plots and live plots alike."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from pairbench.domain import Record, metric_unit
from pairbench.domain.units import format_value, scale_for
from pairbench.library.series import SeriesArrays
from pairbench.ui.library.metric_plot import MetricPlot
from pairbench.ui.plotting.run_plots import RunPlots


def _series(metric: str, values: list[float], stream: str = "sum") -> SeriesArrays:
    t = np.arange(1.0, len(values) + 1.0)
    return SeriesArrays(stream, metric, metric_unit(metric), t, np.array(values))


@pytest.mark.parametrize(
    ("metric", "values", "unit"),
    [
        ("throughput_bps", [1.8e9, 2.2e9, float("nan")], "Gbit/s"),
        ("throughput_bps", [940e6, 948e6], "Mbit/s"),
        ("read_bytes_per_s", [300 * 2**20, 310 * 2**20], "MiB/s"),  # 1024-based, like fio
        ("rtt_avg_ms", [0.048, 0.052], "ms"),
        ("latency_avg_us", [1500.0, 2500.0, float("inf")], "ms"),
        ("read_iops", [64_800.0, 70_000.0], "kIO/s"),
        ("lost_percent", [0.5, 1.0], "%"),
    ],
)
def test_a_stored_run_plot_is_drawn_in_the_unit_its_axis_names(
    qtbot: QtBot, metric: str, values: list[float], unit: str
) -> None:
    plot = MetricPlot(metric, [_series(metric, values)])
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("left")
    assert axis.labelText == unit and not axis.labelUnits  # no second, SI-prefixed unit
    scale = scale_for(metric_unit(metric), max(abs(v) for v in values if np.isfinite(v)))
    assert scale.unit == unit
    drawn = plot.curves["sum"].getOriginalDataset()[1]
    assert drawn is not None
    np.testing.assert_allclose(drawn, np.array(values) * scale.factor)


def test_a_live_plot_reads_out_in_its_axis_unit(qtbot: QtBot) -> None:
    plots = RunPlots()
    qtbot.addWidget(plots)
    for t, rate in ((1.0, 940e6), (2.0, 999.6e6)):
        plots.add_records([Record("sum", t, ("throughput_bps",), (rate,))])
    plots.refresh(force=True)
    plot = plots.plots["throughput"]
    assert plot.scale.unit == "Gbit/s"  # 999.6 Mbit/s shows as 1.00 Gbit/s
    assert plot.left_axis.labelText == plot.scale.unit
    text = plot.readout_text(2.0)
    assert f"sum {format_value('throughput_bps', 999.6e6)}" in text
    assert "sum 1.00 Gbit/s" in text
