"""Every screen fits 1280×720: the window does not grow, nothing scrolls sideways, no label is
cut, every plot keeps room for its data (``layout_kit``), with the run panel open.

Run tabs are fed from recorded outputs of each tool (its own parser on a capture), live and
finished; the storage view holds a stopped suite (its Resume must be on screen).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from layout_kit import (
    SCREEN,
    VERDICT,
    capture_text,
    finish_replay,
    hover_every_plot,
    layout_problems,
    on_screen,
    replay_run,
    settle,
    shot,
)
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, tab_of

from compare_runs import two_shapes
from pairbench.domain.diagnosis import Diagnosis
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.library import Library
from pairbench.library.suites import create_suite, finish_suite
from pairbench.services.compare import compare_inputs
from pairbench.services.parsing import parse_output
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.compare.view import CompareView
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.run_tab import summary_rows
from testkit import REPO

SHOTS = REPO / "test-output" / "layout-1280"

# (tool, capture, parameters as the run asked for them): one per kind of plot layout.
RUNS = [
    ("iperf3", "v321_tcp_P4_ff.out", {"streams": "4"}),  # the widest Hosts panel: TCP's
    ("iperf3", "v321_tcp_P2_ft.out", {"streams": "2"}),
    ("iperf3", "v321_udp_R_client.out", {"udp": "true", "reverse": "true", "bitrate": "20M"}),
    ("iperf3", "v321_bidir_fK.out", {"bidir": "true"}),
    ("nuttcp", "udp_R50m_T3_i1.out", {"udp": "true", "rate": "50m", "duration": "3"}),
    ("nuttcp", "tcp_T3_i1_N2.out", {"streams": "2", "duration": "3"}),
    ("uperf", "rr_tcp_t4_aep_i1.out", {"threads": "4"}),
    ("uperf", "stream_tcp_t4_aep_i1.out", {"profile": "throughput", "threads": "4"}),
    ("ping", "c15_i02_lossy.out", {"count": "15", "interval": "0.2"}),
    ("fio", "jsonplus_si1_randread_j2.out", {"numjobs": "2"}),
    ("fio", "normal_json_si1_randrw70_j2_group.out", {"rw": "randrw", "numjobs": "2"}),
]


@pytest.fixture(scope="module")
def window(tmp_path_factory: pytest.TempPathFactory, qapp: QApplication) -> Iterator[MainWindow]:
    """One window at 1280×720 for the module (built once: ~1 s)."""
    folder = tmp_path_factory.mktemp("layout")
    path = folder / "library.sqlite"
    Library.open(path).close()
    library = Library.open(path)
    bridge = EngineBridge(path)
    settings: QSettings = isolated_settings(folder)
    main = MainWindow(bridge, library, settings)
    try:
        main.resize(*SCREEN)
        main.show()
        settle(qapp)
        yield main
    finally:
        bridge.cancel_all()
        main.close_without_asking()
        bridge.shutdown()
        library.close()


def _fits(window: MainWindow, what: str) -> None:
    settle()
    name = what.replace(" ", "-").replace("/", "-")
    shot(window, SHOTS, f"{name}.png")
    problems = layout_problems(window)
    assert problems == [], f"{what}:\n" + "\n".join(problems)


@pytest.mark.parametrize("title", ["Library", "Hosts", "Storage suite", "Campaigns"])
def test_fixed_tabs_fit(window: MainWindow, title: str) -> None:
    window.tabs.setCurrentWidget(window.fixed_tabs[title])
    _fits(window, title)


@pytest.mark.parametrize(("tool", "capture", "params"), RUNS, ids=[r[1] for r in RUNS])
def test_run_tabs_fit_live_and_finished(
    window: MainWindow, tool: str, capture: str, params: dict[str, str]
) -> None:
    window.resize(*SCREEN)
    controller, signals = replay_run(window, tool, capture, params, finish=False)
    window.run_panel.progress.bind(controller)
    signals.notice.emit(f"{tool} printed nothing for 12 s; the run goes on until it ends")
    hover_every_plot(tab_of(window, controller))
    _fits(window, f"{capture} live")
    run = replay_run(window, tool, capture, params, finish=True)[0]
    window.run_panel.progress.bind(run)
    _fits(window, f"{capture} finished")
    for tab in list(window.run_tabs.tabs):
        window.run_tabs.close_tab(tab, ask=False)
    del signals


def test_a_long_summary_scrolls_in_its_box(window: MainWindow) -> None:
    """uperf's final lines (dozens of figures) stay in a finished run's summary, each a scroll
    away in the box, instead of growing the window past 720 px."""
    window.resize(*SCREEN)
    controller = replay_run(window, "uperf", "rr_tcp_t4_aep_i1.out", {"threads": "4"})[0]
    tab = tab_of(window, controller)
    run = controller.run
    assert run is not None and len(run.summary) > 40
    grid = tab.summary_grid
    shown = {grid.itemAt(i).widget().text() for i in range(grid.count())}  # type: ignore[union-attr]
    assert {label for label, _ in summary_rows(run.summary, "uperf")} <= shown
    assert tab.summary_area.verticalScrollBar().maximum() > 0
    _fits(window, "uperf summary")
    for each in list(window.run_tabs.tabs):
        window.run_tabs.close_tab(each, ask=False)


def test_the_verdict_reads_whole_beside_the_hosts(window: MainWindow) -> None:
    """A finished 4-stream TCP run: the verdict (the longest the diagnosis words) is shown
    whole under the summary, wrapped to its lines, its limit and side first; the Hosts
    panel beside it wraps its columns into bands (none scrolls sideways), every figure in
    view."""
    window.resize(*SCREEN)
    controller = replay_run(window, "iperf3", "v321_tcp_P4_ff.out", {"streams": "4"})[0]
    tab = tab_of(window, controller)
    line = tab.summary_box.findChild(QLabel, "verdict")
    assert isinstance(line, QLabel)
    assert line.text() == VERDICT.sentence()
    assert line.text().startswith("Limited by cpu on the client: ")
    assert line.height() >= line.heightForWidth(line.width()) > line.fontMetrics().height()
    assert on_screen(line, window)
    assert len(tab.hosts.bands()) > 1
    cells = {t for role, row in tab.hosts.texts().items() for t in (role, *row, *row.values())}
    shown = {label.text() for label in tab.hosts.findChildren(QLabel) if on_screen(label, window)}
    assert cells <= shown
    _fits(window, "verdict and hosts")
    for each in list(window.run_tabs.tabs):
        window.run_tabs.close_tab(each, ask=False)


# The UDP field report's verdict as the diagnosis words it (two lines at 1280 px), under a UDP
# run's summary of three rows.
RECEIVE_BUFFER = Diagnosis(
    "receive-buffer",
    "server",
    (
        "UdpRcvbufErrors +6,155/s on the server; the socket buffer is 16,384 bytes: raise "
        "net.core.rmem_max (now 4,194,304) or set window",
    ),
)


def test_a_udp_verdict_sits_under_the_summary(window: MainWindow) -> None:
    """A finished UDP run (its summary three rows) with a receive-buffer verdict wrapped to
    two lines, in the window a user has (the run form docked on the left): the verdict below
    the figures, nothing drawn over anything, from the first frame after the run ended (the
    lab's screenshot once caught the verdict over the summary's third row) to the settled
    window."""
    window.resize(*SCREEN)
    params = {"udp": "true", "bitrate": "2G", "length": "8000", "window": "8K"}
    capture = "v321_udp_R_client.out"
    controller, signals = replay_run(window, "iperf3", capture, params, finish=False)
    settle()
    summary = parse_output("iperf3", capture_text("iperf3", capture)).summary
    finish_replay(controller, signals, summary, RECEIVE_BUFFER)
    tab = tab_of(window, controller)
    for when in ("first frame", "settled"):
        if when == "settled":
            settle()
        shot(window, SHOTS, f"udp-verdict-{when.replace(' ', '-')}.png")
        line = tab.summary_box.findChild(QLabel, "verdict")
        assert isinstance(line, QLabel) and line.text() == RECEIVE_BUFFER.sentence()
        assert line.heightForWidth(line.width()) > line.fontMetrics().height()  # two lines
        assert tab.summary_grid.rowCount() >= 3
        figures = tab.summary_area.mapTo(window, tab.summary_area.rect().bottomLeft()).y()
        assert line.mapTo(window, line.rect().topLeft()).y() > figures, when
        assert on_screen(line, window), when
        problems = layout_problems(window)
        assert problems == [], f"{when}:\n" + "\n".join(problems)
    for each in list(window.run_tabs.tabs):
        window.run_tabs.close_tab(each, ask=False)


def test_hidden_run_panel_comes_back_on_every_tab(window: MainWindow, qtbot: QtBot) -> None:
    """View ▸ Run panel (Ctrl+Shift+R, pressed here) hides and shows the dock on every tab,
    a run's tab included; the tab then has the whole width and still fits."""
    window.resize(*SCREEN)
    replay_run(window, "ping", "c5_i02.out", {"count": "5"})
    assert window.menu_actions["run_panel"].isEnabled()
    window.activateWindow()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        title = window.tabs.tabText(index)
        qtbot.keyClick(window, Qt.Key.Key_R, ctrl_shift)
        settle()
        assert window.run_dock.isHidden(), title
        assert layout_problems(window) == [], title
        qtbot.keyClick(window, Qt.Key.Key_R, ctrl_shift)
        settle()
        assert window.run_dock.isVisible(), title
    for tab in list(window.run_tabs.tabs):
        window.run_tabs.close_tab(tab, ask=False)


def test_resume_of_a_stopped_suite_is_on_screen(window: MainWindow, tmp_path: Path) -> None:
    """A cancelled suite is listed with Resume, in view without scrolling, the form whole."""
    window.resize(*SCREEN)
    target = tmp_path / "target"
    target.mkdir()
    params = SuiteParams(StorageTest.IOPS, str(target), 16 * 2**20, threads=1, iodepth=4)
    with Library.open(window.library.path) as lib:
        suite_id = create_suite(lib, "storage", "local", params.to_json())
        finish_suite(lib, suite_id, "cancelled", error="cancelled by the user")
    panel = window.storage_panel
    window.tabs.setCurrentWidget(panel)
    panel.suites.refresh()
    deadline = time.monotonic() + 10
    while panel.suites.selected_id() != suite_id and time.monotonic() < deadline:
        settle()
    assert panel.suites.selected_id() == suite_id
    _fits(window, "Storage suite with a stopped suite")
    assert on_screen(panel.suites.resume_button, window)
    assert panel.suites.resume_button.isEnabled()
    assert on_screen(panel.start_button, window)


def test_compare_view_fits(qapp: QApplication, tmp_path: Path) -> None:
    """The compare view of six runs on two shapes, as its own window at 1280×720."""
    with Library.open(tmp_path / "compare.sqlite") as lib:
        a, b = two_shapes(lib, seconds=10)
        view = CompareView(compare_inputs(lib, a + b))
    try:
        view.resize(*SCREEN)
        view.show()
        settle(qapp)
        shot(view, SHOTS, "compare.png")
        assert layout_problems(view) == []
    finally:
        view.close()
        view.deleteLater()


def test_a_first_start_fits_the_screen(qapp: QApplication, tmp_path: Path) -> None:
    """No saved layout: the window starts within the screen's free area (1400×900 at most),
    never wider than the screen (it was 1400×900 on a 1280×720 screen)."""
    path = tmp_path / "library.sqlite"
    library = Library.open(path)
    bridge = EngineBridge(path)
    try:
        main = MainWindow(bridge, library, isolated_settings(tmp_path))
        screen = main.screen().availableGeometry().size()
        assert main.width() <= min(1400, screen.width())
        assert main.height() <= min(900, screen.height())
        main.close_without_asking()
    finally:
        bridge.shutdown()
        library.close()
