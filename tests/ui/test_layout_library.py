"""The library and compare side of the window at 1280×720 (issue 28): the Library with a
storage suite and a campaign grouped, a run's detail with its burst analysis, the suites'
list, the compare view of two overlapping runs, and the Storage suite and Campaigns tabs
showing a stored study. In each: the window does not grow, nothing scrolls sideways (text
editors of raw output aside), no label's text is wider than its widget, and every plot is at
least 120 px high and 200 px wide.

The helpers are this file's own (task I's ``layout_kit.py`` covers the run side; the two are
to become one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyqtgraph as pg
import pytest
from campaign_kit import stored_ping_campaign
from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window

from pairbench.domain.storage import StorageTest
from pairbench.library import Library
from pairbench.services.burst import analyze_stored_burst
from pairbench.services.compare import compare_inputs
from pairbench.services.importing import import_output
from pairbench.ui.compare.view import CompareView
from pairbench.ui.main_window import MainWindow
from storage_suites import params_of, store_suite
from testkit import FIXTURES

SIZE = (1280, 720)
MIN_PLOT = (200, 120)  # width, height
WAIT_MS = 20_000
LONG_LABEL = "a label as long as people write them: same zone, placement group, 9001 MTU, tuned"


# -- the checks -------------------------------------------------------------------------------


def _shown(root: QWidget, kind: type) -> list:  # type: ignore[type-arg]
    return [w for w in root.findChildren(kind) if w.isVisible() and w.window().isVisible()]


def _text_width(label: QLabel) -> int:
    """The width the label's text needs on one line (rich text as a document lays it)."""
    text = label.text()
    if label.textFormat() == Qt.TextFormat.RichText or QtGui.Qt.mightBeRichText(text):
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        return int(doc.idealWidth())
    return QFontMetrics(label.font()).horizontalAdvance(text)


def _name(label: QLabel) -> str:
    return repr(label.objectName() or label.text()[:50])


def label_problems(root: QWidget) -> list[str]:
    """Labels whose text is wider than they are (a wrapped one: a word wider than it)."""
    problems = []
    for label in _shown(root, QLabel):
        text = label.text()
        if not text.strip() or (label.pixmap() is not None and not label.pixmap().isNull()):
            continue
        room = label.contentsRect().width() - 2 * label.margin() - label.indent() + 1
        if label.wordWrap():
            metrics = QFontMetrics(label.font())
            plain = re.sub(r"<[^>]+>", " ", text)
            widest = max((metrics.horizontalAdvance(w) for w in plain.split()), default=0)
            if widest > room:
                problems.append(
                    f"{label.objectName() or text[:40]!r}: a word of {widest} px > {room}"
                )
        elif _text_width(label) > room:
            problems.append(
                f"{label.objectName() or text[:40]!r}: {_text_width(label)} px > {room}"
            )
    return problems


def sideways(root: QWidget) -> list[str]:
    """Scroll areas that scroll sideways (raw-output text views, unwrapped on purpose, aside)."""
    out = []
    for area in _shown(root, QAbstractScrollArea):
        if isinstance(area, QPlainTextEdit | QTextEdit):
            continue
        bar = area.horizontalScrollBar()
        if bar.maximum() > 0:
            out.append(f"{type(area).__name__} {area.objectName()!r} scrolls {bar.maximum()} px")
    return out


def small_plots(root: QWidget) -> list[str]:
    """Plots smaller than MIN_PLOT: each PlotItem of a chart, each plot widget."""
    out = []
    for view in _shown(root, pg.GraphicsView):
        items = [i for i in view.scene().items() if isinstance(i, pg.PlotItem) and i.isVisible()]
        for item in items or []:
            size = item.sceneBoundingRect()
            if size.width() < MIN_PLOT[0] or size.height() < MIN_PLOT[1]:
                title = item.titleLabel.text if item.titleLabel else ""
                out.append(
                    f"{title or type(view).__name__}: {size.width():.0f}×{size.height():.0f}"
                )
    return out


def check(window: QWidget, what: str) -> None:
    """Every rule at once, naming what broke it."""
    QApplication.processEvents()
    problems = []
    if (window.width(), window.height()) != SIZE:
        problems.append(f"the window is {window.width()}×{window.height()}, not {SIZE}")
    hint = window.minimumSizeHint()
    if hint.width() > SIZE[0] or hint.height() > SIZE[1]:
        problems.append(f"the window needs {hint.width()}×{hint.height()}")
    problems += sideways(window) + label_problems(window) + small_plots(window)
    assert not problems, f"{what}: " + "; ".join(problems)


# -- the views --------------------------------------------------------------------------------


@pytest.fixture
def window(
    qtbot: QtBot, library: Library, library_path: Path, tmp_path: Path
) -> Iterator[tuple[MainWindow, dict[str, int]]]:
    burst = import_output(
        library,
        "iperf3",
        (FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out").read_text(),
        label=LONG_LABEL,
        tags={"zone": "a", "placement": "cluster", "instance": "r4.large"},
    ).id
    analyze_stored_burst(library, burst)
    same = [
        import_output(library, "iperf3", (FIXTURES / "iperf3" / "tcp_t5.out").read_text()).id
        for _ in range(2)
    ]
    suite = store_suite(library, params_of(StorageTest.LATENCY, max_rounds=5), 2, host="local")
    stored_ping_campaign(library_path, tmp_path, repeats=1)
    with open_window(qtbot, library_path, isolated_settings(tmp_path), size=SIZE) as opened:
        yield opened, {"burst": burst, "a": same[0], "b": same[1], "suite": suite}


def test_the_library_side_fits_1280_by_720(
    qtbot: QtBot, library: Library, window: tuple[MainWindow, dict[str, int]]
) -> None:
    main, ids = window
    view = main.runs_view
    qtbot.waitUntil(lambda: view.model.rowCount() == 3, timeout=WAIT_MS)
    assert "1 storage suite" in view.count_label.text()  # grouped, not listed
    check(main, "the Library, single runs")

    with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS):
        view.open_run(ids["burst"])
    check(main, "a burst run's detail")

    view.show_list()
    with qtbot.waitSignal(view.studies.loaded, timeout=WAIT_MS):
        view.filters.set_mode("suite")
    check(main, "the Library's storage suites")
    view.studies.open_current()
    follower = main.storage_panel.follower
    assert follower is not None
    qtbot.waitUntil(lambda: follower.outcome is not None, timeout=WAIT_MS)
    check(main, "the Storage suite tab showing a stored suite")

    main.tabs.setCurrentWidget(view)
    with qtbot.waitSignal(view.studies.loaded, timeout=WAIT_MS):
        view.filters.set_mode("campaign")
    view.studies.open_current()
    panel = main.campaign_panel
    qtbot.waitUntil(lambda: panel.follower is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.live.grid.model().rowCount() > 0, timeout=WAIT_MS)
    check(main, "the Campaigns tab showing a stored campaign")


def test_the_compare_view_fits_1280_by_720(
    qtbot: QtBot, library: Library, window: tuple[MainWindow, dict[str, int]]
) -> None:
    _main, ids = window
    view = CompareView(compare_inputs(library, [ids["a"], ids["b"], ids["burst"]]))
    qtbot.addWidget(view)
    view.resize(*SIZE)
    view.show()
    qtbot.waitExposed(view)
    assert view.chart is not None and "overlap" in view.chart.spec.note
    for tab in range(view.tabs.count()):
        view.tabs.setCurrentIndex(tab)
        check(view, f"the compare view, {view.tabs.tabText(tab)}")
