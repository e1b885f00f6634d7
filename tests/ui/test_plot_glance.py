"""Plots that read at a glance (issue 17): totals in step with the streams, partial last
intervals marked, legends beside the data that toggle from their names, one colour per stream,
lost datagrams on their own axis, jitter in ms, the burst panel only where it makes sense.

Runs are driven without a network: iperf3 text output (written here in iperf3's own format)
goes line by line through the real parser and the run's real signals, as the engine sends it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from plot_kit import FULL, LAST, LiveRun, last_drawn_x, tcp_output, udp_output
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot
from run_kit import save_png

from pairbench.domain import LOCAL_PAIR, Record, RunSpec
from pairbench.domain.metrics import metric_unit
from pairbench.domain.units import format_value
from pairbench.services.run_browser import SeriesArrays
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.ui.library.metric_plot import MetricPlot
from pairbench.ui.plotting.curves import SUM_COLOR
from pairbench.ui.plotting.intervals import PARTIAL_FRACTION, partial_last, stream_horizon
from pairbench.ui.plotting.legend import HIDDEN_COLOR
from pairbench.ui.plotting.live_plot import LivePlot
from pairbench.ui.run.burst_panel import MIN_INTERVALS, burst_applies


@pytest.fixture
def tcp_run(qtbot: QtBot) -> Iterator[LiveRun]:
    yield LiveRun(qtbot, RunSpec(LOCAL_PAIR.name, "iperf3", {"streams": "4", "duration": "10"}))


@pytest.fixture
def udp_run(qtbot: QtBot) -> Iterator[LiveRun]:
    params = {"udp": "true", "reverse": "true", "streams": "2", "bitrate": "20M"}
    yield LiveRun(qtbot, RunSpec(LOCAL_PAIR.name, "iperf3", params))


def test_the_total_is_drawn_for_the_same_interval_as_the_streams(tcp_run: LiveRun) -> None:
    seen_sum = False
    intervals = 0
    for text in tcp_output():
        records = tcp_run.line(text)
        tcp_run.tab.plots.refresh(force=True)  # a redraw after every line, the worst case
        if not records:
            continue
        plot = tcp_run.plot("throughput")
        total = (
            plot.curves[("sum", "throughput_bps")] if seen_sum or text.startswith("[SUM]") else None
        )
        streams = [c for key, c in plot.curves.items() if key[0] != "sum"]
        if total is None:
            continue
        seen_sum = True
        for curve in streams:  # a stream never runs ahead of the total
            assert last_drawn_x(curve) <= last_drawn_x(total), curve.name
        if text.startswith("[SUM]"):
            intervals += 1
            assert {last_drawn_x(c) for c in streams} == {last_drawn_x(total)}
            assert last_drawn_x(total) == records[0].t
    assert intervals == FULL + 1


def test_streams_are_not_held_for_a_total_that_went_quiet() -> None:
    sums = np.array([1.0, 2.0, 3.0])
    assert stream_horizon([sums], 4.0) == pytest.approx(3.0)  # the total of 4 s is due
    assert stream_horizon([sums], 5.0) is None  # two intervals behind: stop waiting
    assert stream_horizon([], 4.0) is None  # no total at all (ping, fio): nothing held


def test_a_partial_last_interval_is_drawn_apart_with_a_note(tcp_run: LiveRun) -> None:
    for text in tcp_output():
        tcp_run.line(text)
    tcp_run.finish()
    for plot_id in ("throughput", "retransmits"):
        plot = tcp_run.plot(plot_id)
        for curve in plot.curves.values():
            t = curve.series.t
            assert t[-1] - t[-2] < PARTIAL_FRACTION * (t[-2] - t[-3])
            assert curve.partial_s == pytest.approx(t[-1] - t[-2])
            assert curve.item.xData[-1] == t[-2]  # the line stops at the last full interval
            assert curve.marker.isVisible() and curve.marker.data["x"][-1] == t[-1]
            assert curve.marker.data["y"][-1] == curve.series.v[-1]
        assert plot.note.isVisibleTo(plot) and f"{LAST:.2g} s" in plot.note.text()
    assert partial_last(np.array([1.0, 2.0, 3.0, 4.0])) is None  # full intervals: no mark


def test_a_ping_reply_is_an_instant_never_a_partial_interval(qtbot: QtBot) -> None:
    times = [1.0, 2.0, 3.0, 4.3, 5.0]  # a late reply, then one on time: a short last spacing
    assert partial_last(np.array(times)) is not None  # as an interval it would be partial
    run = LiveRun(qtbot, RunSpec(LOCAL_PAIR.name, "ping", {"count": "5"}))
    for t in times:
        run.signals.records.emit([Record("sum", t, ("rtt_ms",), (0.05 + t / 100,))])
    run.finish()
    plot = run.plot("rtt")
    curve = plot.curves[("sum", "rtt_ms")]
    assert curve.partial_s is None and not curve.marker.isVisible()
    assert list(curve.item.xData) == times and not plot.note.isVisibleTo(plot)
    assert not run.tab.burst.enabled and not run.tab.burst.panel.isVisible()


def beside(legend: QRectF, data: QRectF) -> bool:
    """The legend is right of the data area (half a pixel of layout rounding allowed)."""
    return legend.width() > 0 and legend.left() >= data.right() - 1.0


def _click_legend_name(qtbot: QtBot, plot: LivePlot, name: str) -> None:
    rect = plot.legend.label_rect(name)
    view = plot.widget
    point = view.mapFromScene(rect.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))


def _expected_top(plot: LivePlot) -> float:
    """What fitting y to the visible curves gives (zero included, 8 % room above)."""
    low, high = plot.view_box.viewRange()[0]
    peaks = [
        float(c.series.v[(c.series.t >= low) & (c.series.t <= high)].max())
        for c in plot.curves.values()
        if c.visible
    ]
    return max(peaks) * 1.08


@pytest.mark.parametrize("following", [True, False])
def test_clicking_a_legend_name_hides_its_curve_and_y_fits_the_rest(
    qtbot: QtBot, tcp_run: LiveRun, following: bool
) -> None:
    lines = tcp_output()
    for text in lines[: len(lines) // 2]:
        tcp_run.line(text)
    if not following:
        tcp_run.finish()  # the whole run shown, follow off
    tcp_run.tab.plots.refresh(force=True)
    plot = tcp_run.plot("throughput")
    assert tcp_run.tab.plots.follow is following
    qtbot.waitUntil(lambda: plot.legend.sceneBoundingRect().width() > 0)  # laid out
    assert beside(plot.legend.sceneBoundingRect(), plot.view_box.sceneBoundingRect())
    total = plot.curves[("sum", "throughput_bps")]
    top_with_sum = plot.view_box.viewRange()[1][1]
    assert top_with_sum == pytest.approx(_expected_top(plot))

    _click_legend_name(qtbot, plot, "sum")  # the name, not the swatch
    tcp_run.tab.plots.refresh(force=True)
    assert not total.visible
    entry = plot.legend.entry("sum")
    assert entry is not None and entry[1].opts["color"] == HIDDEN_COLOR  # its name greyed
    top = plot.view_box.viewRange()[1][1]
    assert top == pytest.approx(_expected_top(plot)) and top < top_with_sum
    assert "sum" not in plot.readout_text(2.0).split("│")[1]

    _click_legend_name(qtbot, plot, "sum")
    tcp_run.tab.plots.refresh(force=True)
    assert total.visible
    assert plot.view_box.viewRange()[1][1] == pytest.approx(top_with_sum)


def test_each_stream_has_one_colour_in_every_plot_of_the_run(tcp_run: LiveRun) -> None:
    for text in tcp_output():
        tcp_run.line(text)
    tcp_run.finish()
    by_stream: dict[str, set[str]] = {}
    for plot in tcp_run.tab.plots.plots.values():
        for (stream, _metric), curve in plot.curves.items():
            by_stream.setdefault(stream, set()).add(curve.pen_color())
    assert set(tcp_run.tab.plots.plots) == {"throughput", "retransmits", "cwnd"}
    assert all(len(colors) == 1 for colors in by_stream.values()), by_stream
    assert by_stream["sum"] == {SUM_COLOR}
    streams = [s for s in by_stream if s != "sum"]
    assert len({next(iter(by_stream[s])) for s in streams}) == len(streams) == 4


def test_the_library_detail_keeps_stream_colours_and_legend_rules(qtbot: QtBot) -> None:
    parser = Iperf3TextParser()
    records = [r for text in tcp_output() for r in parser.feed(text)]
    arrays: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for record in records:
        for metric, value in zip(record.metrics, record.values, strict=True):
            arrays.setdefault((record.stream, metric), []).append((record.t, value))

    def series(metric: str) -> list[SeriesArrays]:
        found = [(s, pts) for (s, m), pts in arrays.items() if m == metric]
        return [
            SeriesArrays(
                s,
                metric,
                metric_unit(metric),
                np.array([p[0] for p in pts]),
                np.array([p[1] for p in pts]),
            )
            for s, pts in found
        ]

    colors: dict[str, int] = {}
    plots = [
        MetricPlot(m, series(m), "iperf3", stream_colors=colors)
        for m in ("throughput_bps", "cwnd_bytes")
    ]
    page = QWidget()  # stacked as the run detail stacks them
    column = QVBoxLayout(page)
    for plot in plots:
        column.addWidget(plot)
    qtbot.addWidget(page)
    page.resize(900, 560)
    page.show()
    qtbot.waitExposed(page)
    throughput, cwnd = plots
    for stream, curve in cwnd.curves.items():  # cwnd has no "sum": the colours still match
        assert curve.opts["pen"].color() == throughput.curves[stream].opts["pen"].color()
    legend = throughput.legend
    assert legend is not None
    assert beside(legend.sceneBoundingRect(), throughput.getPlotItem().vb.sceneBoundingRect())
    assert throughput.markers["sum"].isVisible()  # the partial last interval, apart
    top_with_sum = throughput.getPlotItem().vb.viewRange()[1][1]
    rect = legend.label_rect("sum")
    point = throughput.mapFromScene(rect.center())
    qtbot.mouseClick(
        throughput.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y())
    )
    assert not throughput.curves["sum"].isVisible() and not throughput.markers["sum"].isVisible()
    streams_top = max(
        float(np.max(c.getOriginalDataset()[1])) for s, c in throughput.curves.items() if s != "sum"
    )
    streams_top = max(
        [streams_top]
        + [
            float(m.data["y"][0])
            for s, m in throughput.markers.items()
            if s != "sum" and m.isVisible()
        ]
    )
    top = throughput.getPlotItem().vb.viewRange()[1][1]
    assert top == pytest.approx(streams_top * 1.08) and top < top_with_sum
    save_png(page, "library-plots-sum-hidden.png")


def test_lost_datagrams_have_their_own_axis_and_jitter_reads_in_ms(udp_run: LiveRun) -> None:
    for text in udp_output():
        udp_run.line(text)
    udp_run.finish()
    datagrams = udp_run.plot("datagrams")
    lost = datagrams.curves[("sum", "lost_packets")]
    total = datagrams.curves[("sum", "packets")]
    assert total.box is datagrams.view_box
    assert lost.box is datagrams.right_box and lost.box is not datagrams.view_box
    right_axis = datagrams.right_axis
    assert right_axis is not None and right_axis.isVisible() and "lost" in right_axis.labelText
    lost_top = max(float(c.series.v.max()) for c in datagrams.curves.values() if c.secondary)
    total_top = max(float(c.series.v.max()) for c in datagrams.curves.values() if not c.secondary)
    assert datagrams.right_box is not None
    assert datagrams.right_box.viewRange()[1][1] == pytest.approx(lost_top * 1.08)
    assert datagrams.view_box.viewRange()[1][1] == pytest.approx(total_top * 1.08)

    jitter = udp_run.plot("jitter")
    unit = metric_unit("jitter_ms")
    assert jitter.scale.unit == unit == "ms" and jitter.left_axis.labelText == unit
    value = float(jitter.curves[("sum", "jitter_ms")].series.v[0])
    assert f"sum {format_value('jitter_ms', value)}" in jitter.readout_text(1.0)
    assert format_value("jitter_ms", value).endswith(" ms")


@pytest.mark.parametrize(
    ("tool", "params", "tags", "applies"),
    [
        ("iperf3", {"streams": "4"}, {}, True),
        ("iperf3", {"udp": "true"}, {}, False),
        ("nuttcp", {}, {}, True),
        ("nuttcp", {"udp": "true"}, {}, False),
        ("uperf", {"profile": "throughput"}, {}, True),
        ("uperf", {"profile": "throughput", "protocol": "udp"}, {}, False),
        ("uperf", {"profile": "latency"}, {}, False),
        ("ping", {"count": "5"}, {}, False),
        ("fio", {}, {}, False),
        ("iperf3", {"streams": "2"}, {"probe": "burst"}, True),
    ],
)
def test_burst_analysis_applies_to_tcp_throughput_and_probes(
    tool: str, params: dict[str, str], tags: dict[str, str], applies: bool
) -> None:
    assert burst_applies(RunSpec(LOCAL_PAIR.name, tool, params, tags=tags)) is applies


def test_no_burst_panel_on_a_udp_run(udp_run: LiveRun) -> None:
    for t in range(1, 3 * MIN_INTERVALS):
        udp_run.signals.records.emit([Record("sum", float(t), ("throughput_bps",), (1e9,))])
    assert not udp_run.tab.burst.enabled and udp_run.tab.burst.estimate is None
    assert not udp_run.tab.burst.panel.isVisible()


def test_screenshots_of_a_tcp_and_a_udp_run(
    qtbot: QtBot, tcp_run: LiveRun, udp_run: LiveRun
) -> None:
    for run, lines, name in (
        (tcp_run, tcp_output(), "plots-tcp.png"),
        (udp_run, udp_output(), "plots-udp.png"),
    ):
        for text in lines:
            run.line(text)
        run.finish()
        qtbot.wait(50)
        path = save_png(run.tab, name)  # test-output/: for a reviewer to look at
        assert path.stat().st_size > 0
