"""What a screen must hold at 1280×720, checked on real widgets (shared by the layout tests).

``layout_problems(window)`` lists, in words, what a user would see wrong in the window as it
is shown now: the window grown past its size, a scroll area scrolling sideways, a visible
label whose text is wider than the label (rich text as a document lays it out; wrapped: a
word wider than the label, or the text taller than it), a plot (a plot widget, or each plot
of a chart) smaller than ``MIN_PLOT`` or whose data area is squeezed under its axes and
legend (``MIN_DATA``), a widget lower than its layout's least height (its children drawn
over each other). Used by the run side's and the Library/compare side's layout tests.
``replay_run`` shows a run's tab fed from a recorded tool output (the tool's own parser on a
capture in ``tests/data/captures``) and both hosts' telemetry (the sampler's parser on a
capture in ``tests/data/telemetry``), live and then finished with a verdict, without running
the tool.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyqtgraph as pg
from PySide6 import QtGui
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from pairbench.domain import (
    LOCAL_PAIR,
    Line,
    LineSource,
    Record,
    Run,
    RunSpec,
    RunStatus,
    Summary,
)
from pairbench.domain.diagnosis import Diagnosis
from pairbench.services.parsing import parse_output
from pairbench.tools.registry import TOOLS
from pairbench.tools.sampler_parse import SamplerParser
from pairbench.tools.targets import socket_proto
from pairbench.ui.bridge import RunSignals
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab
from testkit import REPO

SCREEN = (1280, 720)
MIN_PLOT = (200, 120)  # a plot widget, width × height
MIN_DATA = (120, 60)  # its data area (the view box), once axes and legend took their room
CAPTURES = REPO / "tests" / "data" / "captures"
# The sampler's captures beside a UDP run whose receive buffer overflows and a TCP run (its
# connections' window figures): the most figures a run of each protocol shows.
TELEMETRY = REPO / "tests" / "data" / "telemetry"
# A verdict as long as the evidence makes one (the summary's last lines): the CPU limit of a
# tool thread that seldom slept, as the diagnosis words it.
VERDICT = Diagnosis(
    "cpu",
    "client",
    (
        "iperf3's busiest thread on the client seldom slept: it ran 69 % of the time and "
        "waited for a CPU 9 %, slept on its sockets 22 %; throughput flat (CV 3 %)",
        "client core 0: 90 % busy (24 % of it softirq and irq)",
    ),
)
_ids = itertools.count(9001)
HOSTS_WAIT_S = 5.0  # the Hosts panel's first redraw (every 250 ms) on a busy machine


def settle(app: QApplication | None = None, rounds: int = 5) -> None:
    """Let layouts, deferred plot builds and queued events run (bounded)."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    assert app is not None
    for _ in range(rounds):
        app.processEvents()
        for tab in _run_tabs():
            tab.plots.refresh(force=True)
        app.processEvents()


def _run_tabs() -> list[RunTab]:
    return [w for w in QApplication.topLevelWidgets() for w in w.findChildren(RunTab)]


def _visible_in(widget: QWidget, root: QWidget) -> bool:
    """Shown on screen: visible, and (inside a tab widget) on the tab in front."""
    return widget.isVisibleTo(root) and widget.isVisible()


def _label_text_problem(label: QLabel) -> str | None:
    text = label.text()
    if not text.strip() or not label.pixmap().isNull():
        return None
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    )
    room = label.contentsRect().width() - 2 * label.margin() - max(label.indent(), 0)
    metrics = QFontMetrics(label.font())
    if label.wordWrap():
        plain = re.sub(r"<[^>]+>", " ", text) if rich else text
        widest = max((metrics.horizontalAdvance(w) for w in plain.split()), default=0)
        if widest > room + 1:
            return f"a word {widest} px wide in {room} px"
        need = label.heightForWidth(label.width())
        if not rich and need > label.height() + 1:  # rich text's size hint is its size
            return f"wraps to {need} px high in {label.height()} px"
        return None
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        wide = int(doc.idealWidth())
    else:
        wide = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
    if wide > room + 1:
        return f"text {wide} px wide in {room} px"
    return None


def _name(widget: QWidget) -> str:
    parts: list[str] = []
    current: QWidget | None = widget
    while current is not None and len(parts) < 4:
        parts.append(current.objectName() or type(current).__name__)
        current = current.parentWidget()
    return "/".join(reversed(parts))


def layout_problems(
    window: QWidget,
    *,
    size: tuple[int, int] = SCREEN,
    sideways_ok: Sequence[type[QWidget]] = (QPlainTextEdit, QTextEdit),
    skip: Iterable[QWidget] = (),
) -> list[str]:
    """What is wrong with the window as shown now (empty: it fits ``size``).

    ``sideways_ok``: scroll areas allowed to scroll sideways (unwrapped text views such as
    raw output). ``skip``: widgets whose
    subtree is not checked.
    """
    problems: list[str] = []
    if (window.width(), window.height()) != size:
        problems.append(f"window is {window.width()}×{window.height()}, not {size[0]}×{size[1]}")
    least = window.minimumSizeHint()
    if least.width() > size[0] or least.height() > size[1]:
        problems.append(f"window needs at least {least.width()}×{least.height()}")
    skipped = list(skip)

    def excluded(widget: QWidget) -> bool:
        return any(s is widget or s.isAncestorOf(widget) for s in skipped)

    for area in window.findChildren(QAbstractScrollArea):
        if not _visible_in(area, window) or excluded(area) or isinstance(area, tuple(sideways_ok)):
            continue
        bar = area.horizontalScrollBar()
        if bar.maximum() > 0:  # scrolls sideways, or (bar turned off) cuts its right side
            problems.append(f"{_name(area)} scrolls sideways by {bar.maximum()} px")
    for widget in window.findChildren(QWidget):
        box = widget.layout()
        if box is None or not _visible_in(widget, window) or excluded(widget):
            continue
        least = box.totalMinimumSize().height()
        if widget.height() + 1 < least:  # its layout squeezes children over each other
            problems.append(f"{_name(widget)} is {widget.height()} px high, needs {least} px")
    for label in window.findChildren(QLabel):
        if not _visible_in(label, window) or excluded(label) or label.width() <= 0:
            continue
        problem = _label_text_problem(label)
        if problem:
            problems.append(f"label {label.text()[:40]!r} ({_name(label)}): {problem}")
    for plot in window.findChildren(pg.PlotWidget):
        if not _visible_in(plot, window) or excluded(plot):
            continue
        if plot.width() < MIN_PLOT[0] or plot.height() < MIN_PLOT[1]:
            problems.append(f"plot {_plot_title(plot)} is {plot.width()}×{plot.height()}")
    for view in window.findChildren(pg.GraphicsView):  # each plot of a chart, too
        if not _visible_in(view, window) or excluded(view):
            continue
        for item in view.scene().items():
            if not isinstance(item, pg.PlotItem) or not item.isVisible():
                continue
            name = _item_title(item) or _plot_title(view)
            rect = item.sceneBoundingRect()
            if rect.width() < MIN_PLOT[0] or rect.height() < MIN_PLOT[1]:
                problems.append(f"plot {name}: {rect.width():.0f}×{rect.height():.0f}")
            box = item.getViewBox().sceneBoundingRect()
            if box.width() < MIN_DATA[0] or box.height() < MIN_DATA[1]:
                problems.append(f"plot {name}: data area {box.width():.0f}×{box.height():.0f}")
    return problems


def _item_title(item: pg.PlotItem) -> str:
    return str(item.titleLabel.text) if item.titleLabel is not None else ""


def _plot_title(plot: pg.GraphicsView) -> str:
    owner = plot.parentWidget()
    spec = getattr(owner, "spec", None)
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else None
    title = _item_title(item) if item is not None else ""
    return str(getattr(spec, "title", "")) or title or _name(plot)


def on_screen(widget: QWidget, window: QWidget) -> bool:
    """The whole of ``widget`` is visible inside ``window`` (not scrolled away or clipped by
    a scroll area's viewport)."""
    if not widget.isVisible():
        return False
    rect = widget.rect()
    for corner in (rect.topLeft(), rect.bottomRight()):
        point = widget.mapTo(window, corner)
        if not window.rect().contains(point):
            return False
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if parent.objectName() == "qt_scrollarea_viewport":  # a scroll area's visible part
            inside = widget.mapTo(parent, QPoint(0, 0)), widget.mapTo(parent, rect.bottomRight())
            if not all(parent.rect().contains(p) for p in inside):
                return False
        parent = parent.parentWidget()
    return True


# -- a run's tab from a recorded output ---------------------------------------------------


def hover_every_plot(tab: RunTab) -> None:
    """The pointer over the middle of each plot of ``tab``: every readout shows its values."""
    for plot in tab.plots.plots.values():
        (x0, x1), (y0, y1) = plot.view_box.viewRange()
        plot.show_cursor((x0 + x1) / 2, (y0 + y1) / 2)


def telemetry_records(proto: str = "udp") -> list[Record]:
    """Both hosts' telemetry as the engine hands it over: the sampler capture of a run of
    ``proto`` (tcp, else udp) read by the sampler's own parser, once as the client's and once
    as the server's."""
    records: list[Record] = []
    capture = TELEMETRY / ("sampler-tcp.out" if proto == "tcp" else "sampler-udp.out")
    for role in ("client", "server"):
        parser = SamplerParser(role, 0.0, proto=proto)
        first: int | None = None
        received = 0.0
        for line in capture.read_text().splitlines():
            if line.startswith("#t "):
                stamp = int(line.split()[1])
                first = stamp if first is None else first
                received = (stamp - first) / 1e6
            records += parser.feed(Line(LineSource.SAMPLER_OUT, line, received))
    return records


def capture_text(tool: str, name: str) -> str:
    return (CAPTURES / tool / name).read_text(encoding="utf-8", errors="replace")


def replay_run(
    window: MainWindow,
    tool: str,
    capture: str,
    params: dict[str, str] | None = None,
    *,
    finish: bool = True,
    verdict: Diagnosis = VERDICT,
) -> tuple[RunController, RunSignals]:
    """A run's tab shown as the engine would feed it: started, then the capture's lines
    and records (the tool's file parser on the recorded output) and the hosts' telemetry,
    then (``finish``) the verdict (``verdict``) and the stored run with the tool's summary.
    The tab is the current one."""
    text = capture_text(tool, capture)
    parsed = parse_output(tool, text)
    spec = RunSpec(LOCAL_PAIR.name, tool, TOOLS[tool].resolve(params or {}), label=capture)
    signals = RunSignals()
    controller = RunController(signals, LOCAL_PAIR, spec)
    window.run_tabs.track(controller)
    run_id = next(_ids)
    signals.started.emit(run_id, spec, 10.0)
    for line in text.splitlines()[:200]:
        signals.line.emit(Line(LineSource.CLIENT_OUT, line, time.monotonic()))
    batch = 50
    for start in range(0, len(parsed.records), batch):
        signals.records.emit(parsed.records[start : start + batch])
    signals.telemetry.emit(telemetry_records(socket_proto(tool, spec.params)))
    tab = window.run_tabs.tab_of(controller)
    deadline = time.monotonic() + HOSTS_WAIT_S  # the Hosts panel drawn, as a user sees it
    while tab is not None and tab.hosts.isHidden() and time.monotonic() < deadline:
        QTest.qWait(20)
    if finish:
        finish_replay(controller, signals, parsed.summary, verdict)
    settle()
    return controller, signals


def finish_replay(
    controller: RunController,
    signals: RunSignals,
    summary: Summary,
    verdict: Diagnosis = VERDICT,
) -> Run:
    """End a replayed run as the engine does: its verdict, then the stored run (completed
    after 10 s, with the tool's ``summary``). Events are not processed: the caller looks at
    the first frame, or settles."""
    spec, run_id = controller.spec, controller.run_id
    assert run_id is not None
    signals.diagnosis.emit(verdict.payload())
    started = time.time() - 10
    run = Run(
        run_id,
        spec,
        RunStatus.COMPLETED,
        started,
        started + 10.0,
        tool_version=f"{spec.tool} (recorded)",
        summary=dict(summary.values),
        summary_complete=summary.complete,
        label=spec.label,
    )
    signals.finished.emit(run)
    return run


def shot(widget: QWidget, folder: Path, name: str) -> Path:
    """Save ``widget`` as ``folder/name`` (for a person to look at)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert widget.grab().save(str(path)), path
    return path
