"""The run tab's Hosts panel never scrolls sideways: the columns that do not fit go on to a
second band (or more), every figure shown whole (real widgets, the sampler's TCP capture)."""

from __future__ import annotations

import contextlib

from layout_kit import layout_problems, on_screen, telemetry_records
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.exceptions import TimeoutError as WaitTimedOut
from pytestqt.qtbot import QtBot

from pairbench.ui.run.hosts_panel import SLACK, HostsPanel
from pairbench.ui.run.hosts_table import take_latest

HEIGHT = 400


def _shown(qtbot: QtBot, width: int) -> tuple[QWidget, HostsPanel]:
    figures: dict[tuple[str, str], float] = {}
    take_latest(figures, telemetry_records("tcp"))
    window = QWidget()
    qtbot.addWidget(window)
    panel = HostsPanel("tcp")
    layout = QVBoxLayout(window)
    layout.addWidget(panel)
    layout.addStretch(1)
    panel.show_figures(figures)
    window.resize(width, HEIGHT)
    window.show()
    qtbot.waitExposed(window)
    return window, panel


def _every_figure_on_screen(qtbot: QtBot, window: QWidget, panel: HostsPanel) -> None:
    """Each host's name, each column's title and each cell's text is a label wholly in view
    (waited for: the panel lays its bands out once the resize reached it)."""

    def missing() -> set[str]:
        shown = {label.text() for label in panel.findChildren(QLabel) if on_screen(label, window)}
        return wanted - shown

    wanted = {t for role, cells in panel.texts().items() for t in (role, *cells, *cells.values())}
    with contextlib.suppress(WaitTimedOut):
        qtbot.waitUntil(lambda: not missing(), timeout=5_000)
    assert missing() == set()
    assert [t for band in panel.bands() for t in band] == list(panel.table.columns)
    assert layout_problems(window, size=(window.width(), HEIGHT)) == []


def test_a_narrow_tab_wraps_the_columns_into_bands(qtbot: QtBot) -> None:
    """At the width of a 1280 px window's run tab beside the Run dock (about 900 px), and
    narrower, the TCP run's 8 columns wrap; wide, they stand on one line; back narrow,
    they wrap again. Nothing is cut, nothing scrolls, every figure is on screen."""
    window, panel = _shown(qtbot, 900)
    assert len(panel.table.columns) == 8
    assert len(panel.bands()) == 2
    _every_figure_on_screen(qtbot, window, panel)
    window.resize(1800, HEIGHT)
    qtbot.waitUntil(lambda: len(panel.bands()) == 1, timeout=5_000)
    _every_figure_on_screen(qtbot, window, panel)
    window.resize(520, HEIGHT)
    qtbot.waitUntil(lambda: len(panel.bands()) >= 3, timeout=5_000)
    _every_figure_on_screen(qtbot, window, panel)
    assert panel.minimumSizeHint().width() < 520  # the panel never widens the window


def test_the_bands_stay_as_live_figures_change_their_width(qtbot: QtBot) -> None:
    """Live figures change their texts' width every redraw: a column that no longer fits
    wraps at once, but the panel goes back to fewer bands only with ``SLACK`` to spare (it
    does not jump between one and two bands as a figure gains and loses a digit)."""
    window, panel = _shown(qtbot, 1800)
    assert len(panel.bands()) == 1
    need = panel.sizeHint().width()
    around = window.width() - panel.width()  # the window's margins
    window.resize(need + 8 + around, HEIGHT)
    qtbot.waitUntil(lambda: panel.width() == need + 8, timeout=5_000)
    assert len(panel.bands()) == 1
    before = dict(panel.figures)
    wider = dict(before)
    wider[("client:conn", "conn_rwnd_limited_percent")] = 100.0  # "rwnd 100 %"
    wider[("client:proc", "proc_thread_max_percent")] = 100.0  # "ran 100 %"
    panel.show_figures(wider)
    qtbot.waitUntil(lambda: len(panel.bands()) == 2, timeout=5_000)
    _every_figure_on_screen(qtbot, window, panel)
    panel.show_figures(before)  # would fit one band again, with 8 px to spare only
    assert len(panel.bands()) == 2
    _every_figure_on_screen(qtbot, window, panel)
    window.resize(need + SLACK + 8 + around, HEIGHT)
    qtbot.waitUntil(lambda: len(panel.bands()) == 1, timeout=5_000)
    _every_figure_on_screen(qtbot, window, panel)
