"""Reading a run's tab at 1280×720: the command that ran heads it, the readout keeps the time
and first values, narrow plots keep their time labels, ping's curve is its RTT, and values
read with the tool's own precision."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from layout_kit import SCREEN, capture_text, hover_every_plot, replay_run, settle, shot
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from run_kit import click_start, isolated_settings, last_controller, open_window, set_field, tab_of

from pairbench.library import Library
from pairbench.services.run_again import recorded_command_lines
from pairbench.ui.main_window import MainWindow
from pairbench.ui.plotting.live_plot import LivePlot
from pairbench.ui.run.controller import RunPhase
from testkit import REPO, require_program

SHOTS = REPO / "test-output" / "screens-i"


@pytest.fixture
def window(qtbot: QtBot, library_path: Path, tmp_path: Path) -> Iterator[MainWindow]:
    settings: QSettings = isolated_settings(tmp_path)
    with open_window(qtbot, library_path, settings, size=SCREEN) as main:
        yield main


def _drawn_time_labels(plot: LivePlot) -> list[str]:
    """The labels the bottom (time) axis draws now."""
    axis = plot.plot_item.getAxis("bottom")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _rect, _flags, text in specs[2]] if specs else []


@pytest.mark.timeout(120)
def test_a_live_run_is_headed_by_the_command_it_ran(
    qtbot: QtBot, window: MainWindow, library_path: Path
) -> None:
    """A real 4-stream iperf3 run on this computer: while it goes, its tab says the client's
    command line as stored with the run (not every default parameter), the server's in
    the tooltip; the pointer's readout starts with the time."""
    require_program("iperf3")
    panel = window.run_panel
    set_field(panel, "streams", "4")
    set_field(panel, "duration", "3")
    click_start(qtbot, panel)
    controller = last_controller(panel)
    qtbot.waitUntil(lambda: controller.records_received >= 10, timeout=30_000)
    tab = tab_of(window, controller)
    qtbot.waitUntil(lambda: bool(tab.commands), timeout=10_000)
    assert controller.run_id is not None
    with Library.open(library_path) as lib:
        stored = recorded_command_lines(lib, controller.run_id)
    shown = tab.command_label.full_text()
    assert shown == f"$ {stored[-1][2]}"
    assert re.search(r"(^| )-P 4( |$)", stored[-1][2]), stored
    assert "bitrate=0" not in shown and "length=0" not in shown
    assert all(line in tab.command_label.toolTip() for _r, _h, line in stored)
    # The readout over the throughput plot: its time first, whatever the plot's width.
    qtbot.waitUntil(lambda: "throughput" in tab.plots.plots, timeout=10_000)
    settle()
    hover_every_plot(tab)
    for plot in tab.plots.plots.values():
        assert re.match(r"\d+\.\d s  │  cursor ", plot.readout.text()), plot.readout.text()
    shot(window, SHOTS, "after-live-iperf3-4-streams-hover.png")
    qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=30_000)


def test_ping_draws_its_rtt_not_a_sum(qtbot: QtBot, window: MainWindow) -> None:
    controller, _signals = replay_run(window, "ping", "c15_i02_lossy.out", {"count": "15"})
    tab = tab_of(window, controller)
    plot = tab.plots.plots["rtt"]
    assert plot.legend.names() == ["RTT"]
    hover_every_plot(tab)
    assert "RTT " in plot.readout.full_text() and " sum " not in plot.readout.full_text()


def test_udp_plots_keep_time_labels_and_the_tools_precision(
    qtbot: QtBot, window: MainWindow
) -> None:
    """iperf3 UDP (the receiver's intervals: jitter, loss, datagrams), finished: each of the
    narrow UDP plots labels at least three times, and the jitter reads as iperf3 printed it
    ("0.018 ms", never "0.0180 ms")."""
    capture = "v321_udp_R_client.out"
    params = {"udp": "true", "reverse": "true", "bitrate": "20M", "duration": "3"}
    controller, _signals = replay_run(window, "iperf3", capture, params)
    tab = tab_of(window, controller)
    settle()
    for name in ("jitter", "loss", "datagrams"):
        labels = [t for t in _drawn_time_labels(tab.plots.plots[name]) if t]
        assert len(labels) >= 3, (name, labels)
    printed = re.search(
        r"([\d.]+) ms\s+\d+/\d+ \(\d+%\)\s+receiver", capture_text("iperf3", capture)
    )
    assert printed is not None
    cells = [
        tab.summary_grid.itemAt(i).widget().text()  # type: ignore[union-attr]
        for i in range(tab.summary_grid.count())
    ]
    assert cells[cells.index("Jitter") + 1] == f"{printed.group(1)} ms"
    shot(window, SHOTS, "after-finished-udp.png")


def test_fio_partial_note_gives_way_to_the_readout_and_comes_back(
    qtbot: QtBot, window: MainWindow
) -> None:
    """fio's last interval is partial: its note stands beside each title (cut to fit, never
    widening the plot), the readout takes its place under the pointer, the note returns
    when the pointer leaves."""
    params = {"rw": "randrw", "numjobs": "2"}
    controller, _signals = replay_run(
        window, "fio", "normal_json_si1_randrw70_j2_group.out", params
    )
    tab = tab_of(window, controller)
    plot = tab.plots.plots["read-lat"]
    assert plot.note.isVisible() and "partial" in plot.note.full_text()
    assert plot.note.width() <= plot.header.width()
    hover_every_plot(tab)
    assert plot.readout.isVisible() and not plot.note.isVisible()
    QApplication.sendEvent(plot, QEvent(QEvent.Type.Leave))
    assert not plot.readout.isVisible() and plot.note.isVisible()
    assert tab.plots.follow_bar.width() <= tab.plots.width()
    shot(window, SHOTS, "after-finished-fio-replayed.png")
