"""Live plots: buffers, unit scaling, plot layout from metric names, follow, crosshair, legend."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from pytestqt.qtbot import QtBot

from pairbench.domain import METRICS, Record, metric_unit
from pairbench.domain.units import scale_for
from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.layout import plot_for
from pairbench.ui.plotting.run_plots import RunPlots
from pairbench.ui.plotting.time_axis import clock_text, pick_step

TCP = ("throughput_bps", "retransmits", "cwnd_bytes")


def _tcp_records(t: float, streams: int = 2, rate: float = 470e6) -> list[Record]:
    records = [Record(str(5 + 2 * i), t, TCP, (rate, 0.0, 600e3)) for i in range(streams)]
    records.append(Record("sum", t, TCP[:2], (rate * streams, 0.0)))
    return records


@pytest.fixture
def plots(qtbot: QtBot) -> RunPlots:
    widget = RunPlots()
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


# -- buffers ---------------------------------------------------------------------------------


def test_buffer_grows_by_doubling_and_old_views_stay_valid() -> None:
    series = GrowableSeries()
    start = series.capacity
    for i in range(start):
        series.append(float(i), float(i) * 2)
    view = series.v
    series.append(float(start), -1.0)
    assert series.capacity == 2 * start
    assert view[-1] == (start - 1) * 2  # the earlier view still shows the old data
    series.extend(np.arange(10_000.0), np.ones(10_000))
    assert len(series) == start + 1 + 10_000
    assert series.capacity & (series.capacity - 1) == 0  # still a power of two
    assert series.max_abs == (start - 1) * 2
    assert series.value_at(3.4) == (3.0, 6.0)
    assert series.value_at(1e9) == (9999.0, 1.0)


def test_buffer_notes_non_finite_values() -> None:
    series = GrowableSeries()
    series.append(1.0, 5.0)
    assert series.finite
    series.extend([2.0, 3.0], [float("nan"), 7.0])
    assert not series.finite
    assert series.max_abs == 7.0


# -- scaling, layout, axis -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("unit", "value", "expected"),
    [
        ("bit/s", 941e6, "Mbit/s"),
        ("bit/s", 1.2e9, "Gbit/s"),
        ("bit/s", 0.0, "bit/s"),
        ("µs", 850.0, "µs"),
        ("µs", 1500.0, "ms"),
        ("ms", 0.07, "ms"),  # never below the unit the metric is stored in
        ("ms", 12.0, "ms"),
        ("B/s", 300 * 2**20, "MiB/s"),
        ("IO/s", 64_800.0, "kIO/s"),
        ("%", 12.0, "%"),
    ],
)
def test_scale_follows_the_magnitude(unit: str, value: float, expected: str) -> None:
    assert scale_for(unit, value).unit == expected


def test_scale_formats_values() -> None:
    assert scale_for("bit/s", 9.41e9).format(9.41e9) == "9.41 Gbit/s"
    assert scale_for("ms", 0.07).format(0.063) == "0.0630 ms"


@pytest.mark.parametrize(
    ("metric", "plot"),
    [
        ("throughput_bps", "throughput"),
        ("throughput_reverse_bps", "throughput"),
        ("retransmits", "retransmits"),
        ("cwnd_bytes", "cwnd"),
        ("jitter_ms", "jitter"),
        ("lost_percent", "loss"),
        ("rtt_ms", "rtt"),
        ("latency_avg_us", "latency"),
        ("ops_per_s", "ops"),
        ("read_iops", "read-iops"),
        ("write_bytes_per_s", "write-bw"),
        ("write_lat_p99_us", "write-lat"),
        ("tx_cpu_percent", "metric:tx_cpu_percent"),
    ],
)
def test_each_metric_has_its_plot(metric: str, plot: str) -> None:
    assert plot_for(metric).id == plot


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_a_plot_shows_its_metrics_in_their_own_unit(metric: str) -> None:
    # One axis per plot: every curve on it must be in the unit the axis is scaled and named in.
    assert plot_for(metric).unit == metric_unit(metric)


def test_time_axis_reads_like_a_clock() -> None:
    assert clock_text(45, 5) == "45 s"
    assert clock_text(90, 30) == "1:30"
    assert clock_text(7200, 3600) == "2:00:00"
    assert pick_step(86400, 900) >= 3600
    assert pick_step(10, 900) == 1


# -- RunPlots --------------------------------------------------------------------------------


def test_plots_appear_for_the_metrics_that_arrive(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    plots.refresh(force=True)
    assert list(plots.plots) == ["throughput", "retransmits", "cwnd"]
    plots.add_records([Record("sum", 1.0, ("jitter_ms", "lost_percent"), (0.05, 0.1))])
    plots.add_records([Record("sum", 1.0, ("rtt_ms",), (0.07,))])
    plots.add_records(
        [
            Record("sum", 1.0, ("read_iops", "read_bytes_per_s", "read_lat_mean_us"), (1, 2, 3)),
            Record("sum", 1.0, ("write_iops", "write_lat_p99_us"), (1, 2)),
        ]
    )
    plots.refresh(force=True)
    assert {"jitter", "loss", "rtt", "read-iops", "read-bw", "read-lat", "write-iops"} <= set(
        plots.plots
    )
    assert not plots.placeholder.isVisible()
    # One curve per stream; names say which stream (and which metric when not the plot's own).
    assert set(plots.plots["throughput"].curves) == {
        ("5", "throughput_bps"),
        ("7", "throughput_bps"),
        ("sum", "throughput_bps"),
    }
    assert {c.name for c in plots.plots["throughput"].curves.values()} == {
        "stream 5",
        "stream 7",
        "sum",
    }
    assert {c.name for c in plots.plots["write-lat"].curves.values()} == {"p99 · sum"}


def test_batches_and_single_records_fill_the_same_buffers(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    plots.add_records([r for t in range(2, 102) for r in _tcp_records(float(t))])
    buffer = plots.buffer("5", "throughput_bps")
    assert buffer is not None
    assert len(buffer) == 101
    assert buffer.t[-1] == 101.0
    assert plots.buffer("sum", "cwnd_bytes") is None


def test_redraws_only_when_something_changed(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    assert plots.refresh(force=True)
    curve = plots.plots["throughput"].curves[("sum", "throughput_bps")]
    assert len(curve.item.xData) == 1
    assert not plots.refresh()  # nothing new
    plots.add_records(_tcp_records(2.0))
    assert plots.refresh()
    assert len(curve.item.xData) == 2


def test_a_tick_redraws_one_plot_round_robin(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    plots.refresh(force=True)
    plots.add_records(_tcp_records(2.0))

    def drawn() -> set[str]:
        return {
            pid
            for pid, plot in plots.plots.items()
            if len(plot.curves[("5", plot.spec.primary)].item.xData) == 2
        }

    seen = []
    for _ in range(3):
        assert plots.refresh()
        seen.append(drawn())
    # One more plot per tick, each once.
    assert [len(s) for s in seen] == [1, 2, 3]
    assert seen[-1] == {"cwnd", "retransmits", "throughput"}
    assert not plots.refresh()  # nothing left
    for plot in plots.plots.values():
        assert plot.view_box.viewRange()[0][1] == pytest.approx(2.04)  # all followed


def test_hidden_plots_wait_until_shown(plots: RunPlots, qtbot: QtBot) -> None:
    plots.hide()
    plots.add_records(_tcp_records(1.0))
    assert not plots.refresh()
    assert plots.plots == {}  # no widget is built for a view nobody sees
    assert len(plots.buffer("sum", "throughput_bps")) == 1  # type: ignore[arg-type]
    plots.show()
    qtbot.waitUntil(lambda: len(plots.plots) == 3)  # one plot built per redraw tick
    curve = plots.plots["throughput"].curves[("sum", "throughput_bps")]
    qtbot.waitUntil(lambda: curve.item.xData is not None and len(curve.item.xData) == 1)


def test_plot_widgets_are_built_one_per_tick(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    assert plots.refresh()
    assert list(plots.plots) == ["throughput"]
    assert plots.plots["throughput"].curves == {}  # its curves come with the next ticks
    for _ in range(20):
        if not plots._missing:
            break
        assert plots.refresh()
    assert list(plots.plots) == ["throughput", "retransmits", "cwnd"]
    assert len(plots.plots["throughput"].curves) == 3
    plots.refresh()  # now the data is drawn
    assert len(plots.plots["throughput"].curves[("sum", "throughput_bps")].item.xData) == 1


def test_units_scale_with_the_data(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0, rate=400e6))
    plots.refresh(force=True)
    throughput = plots.plots["throughput"]
    assert throughput.scale.unit == "Mbit/s"
    assert "Mbit/s" in throughput.left_axis.labelText
    plots.add_records(_tcp_records(2.0, rate=4e9))
    plots.refresh(force=True)
    assert throughput.scale.unit == "Gbit/s"
    assert "Gbit/s" in throughput.left_axis.labelText


def test_follow_keeps_the_latest_window_and_user_zoom_turns_it_off(
    plots: RunPlots, qtbot: QtBot
) -> None:
    plots.set_window(300.0)
    plots.add_records([r for t in range(1, 1001) for r in _tcp_records(float(t))])
    plots.refresh(force=True)
    low, high = plots.plots["throughput"].view_box.viewRange()[0]
    assert high == pytest.approx(1000.0)
    assert low == pytest.approx(700.0)
    # Every plot shows the same x range.
    assert plots.plots["cwnd"].view_box.viewRange()[0] == pytest.approx([low, high])

    # A wheel zoom by the user: follow turns off and the range stays put as data arrives.
    view = plots.plots["throughput"].widget
    center = view.viewport().rect().center()
    qtbot.wait(50)
    from PySide6.QtGui import QWheelEvent

    event = QWheelEvent(
        QPointF(center),
        QPointF(view.viewport().mapToGlobal(center)),
        QPointF(0, 0).toPoint(),
        QPointF(0, 120).toPoint(),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(view.viewport(), event)
    assert not plots.follow
    assert not plots.follow_button.isChecked()
    zoomed = plots.plots["throughput"].view_box.viewRange()[0]
    assert zoomed[1] - zoomed[0] < 300
    plots.add_records(_tcp_records(1001.0))
    plots.refresh()
    assert plots.plots["throughput"].view_box.viewRange()[0] == pytest.approx(zoomed)
    assert plots.plots["cwnd"].view_box.viewRange()[0] == pytest.approx(zoomed)

    # The Follow button brings the latest window back.
    qtbot.mouseClick(plots.follow_button, Qt.MouseButton.LeftButton)
    assert plots.follow
    low, high = plots.plots["throughput"].view_box.viewRange()[0]
    assert high == pytest.approx(1001.0)
    assert low == pytest.approx(701.0)


def test_show_all_and_finish_show_the_whole_run(plots: RunPlots, qtbot: QtBot) -> None:
    plots.set_window(60.0)
    plots.add_records([r for t in range(1, 601) for r in _tcp_records(float(t))])
    plots.refresh(force=True)
    assert plots.plots["throughput"].view_box.viewRange()[0][0] == pytest.approx(540.0)
    plots.finish()  # the next tick shows the whole run
    qtbot.waitUntil(lambda: not plots.follow)
    low, high = plots.plots["throughput"].view_box.viewRange()[0]
    assert low == 0.0
    assert high >= 600.0


def test_crosshair_lists_the_values_under_the_cursor(plots: RunPlots) -> None:
    for t in range(1, 11):
        plots.add_records(_tcp_records(float(t), rate=470e6 + t * 1e6))
    plots.refresh(force=True)
    throughput = plots.plots["throughput"]
    throughput.show_cursor(4.2, 5e8)
    text = throughput.readout.text()
    assert "sum 948 Mbit/s" in text
    assert "stream 5 474 Mbit/s" in text
    assert "cursor 500 Mbit/s" in text
    assert throughput.v_line.isVisible() and throughput.h_line.isVisible()
    # The other plots show the same instant.
    assert plots.plots["cwnd"].readout.text() == ""
    plots._sync_cursor(throughput, 4.2)
    assert "586 KiB" in plots.plots["cwnd"].readout.text()


def test_the_legend_toggles_a_curve(plots: RunPlots) -> None:
    plots.add_records(_tcp_records(1.0))
    plots.refresh(force=True)
    throughput = plots.plots["throughput"]
    sample, _label = next(
        (s, label) for s, label in throughput.legend.items if label.text == "stream 5"
    )

    class Click:
        def button(self) -> Qt.MouseButton:
            return Qt.MouseButton.LeftButton

        def accept(self) -> None:
            pass

    sample.mouseClickEvent(Click())
    assert not throughput.curves[("5", "throughput_bps")].visible
    assert "stream 5" not in throughput.readout_text(1.0)
    sample.mouseClickEvent(Click())
    assert throughput.curves[("5", "throughput_bps")].visible


def test_non_finite_values_do_not_break_drawing(plots: RunPlots) -> None:
    plots.add_records([Record("sum", 1.0, ("rtt_ms",), (0.07,))])
    plots.add_records([Record("sum", 2.0, ("rtt_ms",), (float("nan"),))])
    plots.add_records([Record("sum", 3.0, ("rtt_ms",), (0.09,))])
    for t, rate in ((1.0, float("nan")), (2.0, 2.5e9), (3.0, float("inf"))):
        plots.add_records([Record("sum", t, ("throughput_bps",), (rate,))])
    assert plots.refresh(force=True)
    assert plots.plots["rtt"].scale.unit == "ms"  # an RTT stays in ms, as ping prints it
    assert plots.plots["throughput"].scale.unit == "Gbit/s"  # NaN and inf left out
