"""A run's tab: live plots, progress and Cancel, the summary once it ends, the raw tool lines."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Line, LineSource, Record, Run, RunStatus
from pairbench.domain.metrics import metric_label, metric_order
from pairbench.domain.units import format_value
from pairbench.services.library import Library
from pairbench.services.run_again import asked_text, recorded_command_lines
from pairbench.tools.targets import socket_proto
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.elided_label import ElidedLabel
from pairbench.ui.plotting.run_plots import RunPlots
from pairbench.ui.run.baseline_pin import BaselinePin
from pairbench.ui.run.burst_panel import BurstMonitor
from pairbench.ui.run.controller import RunController, RunPhase
from pairbench.ui.run.hosts_panel import HostsPanel
from pairbench.ui.run.progress import RunProgress
from pairbench.ui.run.verdict_line import VerdictLine

MAX_RAW_LINES = 5000
RAW_FLUSH_MS = 250
SUMMARY_COLUMNS = 3
# Rows of the summary shown at once: a tool that reports many figures (uperf's final lines:
# every transaction and flowop) scrolls in the box instead of growing the window past 720 px.
SUMMARY_ROWS = 6

STATUS_MARKS = {
    RunStatus.COMPLETED: "✓",
    RunStatus.CANCELLED: "■",
    RunStatus.FAILED: "✗",
    RunStatus.INTERRUPTED: "✗",
    RunStatus.STALLED: "⚠",
    RunStatus.RUNNING: "●",
}


def summary_rows(summary: Mapping[str, float], tool: str = "") -> list[tuple[str, str]]:
    """(label, formatted value) for a run's summary: known metrics in their usual order, named
    in the tool's vocabulary."""
    return [
        (metric_label(name, tool), format_value(name, summary[name]))
        for name in metric_order(summary)
    ]


def _line_text(line: Line) -> str:
    source = line.source.value if isinstance(line.source, LineSource) else str(line.source)
    return f"{source:<13} │ {line.text}"


class RawLinesPane(QWidget):
    """The tool's output lines, last ``MAX_RAW_LINES`` kept, collapsed by default."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines: deque[str] = deque(maxlen=MAX_RAW_LINES)
        self.total = 0
        self._pending: list[str] = []
        self.toggle = QToolButton()
        self.toggle.setObjectName("raw_toggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.toggled.connect(self.set_expanded)
        # The text view is built when first opened: its fixed-width font took ~0.2 s to load
        # the first time, which would otherwise freeze the window as the first run starts.
        self.text: QPlainTextEdit | None = None
        self._shown_total = -1
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.toggle)
        self._layout.addStretch(0)  # keeps the button at the top while the text is hidden
        self._timer = QTimer(self)
        self._timer.setInterval(RAW_FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self._timer.start()
        self._update_toggle()

    @property
    def expanded(self) -> bool:
        return self.toggle.isChecked()

    def add(self, line: Line) -> None:
        text = _line_text(line)
        self.lines.append(text)
        self.total += 1
        if self.expanded:
            self._pending.append(text)
            if len(self._pending) > MAX_RAW_LINES:
                del self._pending[:-MAX_RAW_LINES]

    def flush(self) -> None:
        """Show the lines received since the last flush (only while expanded)."""
        if self._pending and self.expanded and self.text is not None:
            self.text.appendPlainText("\n".join(self._pending))
            self._pending.clear()
        if self.total != self._shown_total:
            self._update_toggle()

    def _text_view(self) -> QPlainTextEdit:
        if self.text is None:
            self.text = QPlainTextEdit()
            self.text.setReadOnly(True)
            self.text.setMaximumBlockCount(MAX_RAW_LINES)
            self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            self._layout.insertWidget(1, self.text, 1)
        return self.text

    def set_expanded(self, expanded: bool) -> None:
        if self.toggle.isChecked() != expanded:
            self.toggle.setChecked(expanded)  # comes back here through toggled
            return
        self._pending.clear()
        if expanded:
            text = self._text_view()
            text.setPlainText("\n".join(self.lines))
            text.verticalScrollBar().setValue(text.verticalScrollBar().maximum())
            text.setVisible(True)
        elif self.text is not None:
            self.text.clear()
            self.text.setVisible(False)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self._update_toggle()

    def _update_toggle(self) -> None:
        self._shown_total = self.total
        kept = f", last {len(self.lines)} kept" if self.total > len(self.lines) else ""
        self.toggle.setText(f"Raw output ({self.total} lines{kept})")


class RunTab(QWidget):
    """Everything about one run while it goes and after it ended."""

    titleChanged = Signal(str)

    def __init__(
        self,
        controller: RunController,
        parent: QWidget | None = None,
        *,
        bridge: EngineBridge | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.title_label = QLabel()
        font = QFont(self.title_label.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title_label.setFont(font)
        # What ran: the tool and the parameters asked for, then (once the run stored them)
        # the exact command line; every host's in the tooltip.
        self.bridge = bridge
        self.command_label = ElidedLabel(asked_text(controller.spec))
        self.command_label.setObjectName("run_command")
        self.command_label.setStyleSheet("color: #555;")
        self.command_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.commands: list[tuple[str, str, str]] = []  # (role, host, line) as recorded
        self._commands_asked = False
        self.progress = RunProgress()
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setVisible(False)
        self.plots = RunPlots()
        self.summary_box = QGroupBox("Summary")
        self.summary_area = QScrollArea()  # at most SUMMARY_ROWS rows high, the rest scrolls
        self.summary_area.setWidgetResizable(True)
        self.summary_area.setFrameShape(QFrame.Shape.NoFrame)
        self.summary_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        cells = QWidget()
        self.summary_grid = QGridLayout(cells)
        self.summary_grid.setContentsMargins(0, 0, 0, 0)
        self.summary_grid.setHorizontalSpacing(14)
        self.summary_area.setWidget(cells)
        self.summary_notes = QVBoxLayout()  # under the figures, always in view: the verdict
        box_layout = QVBoxLayout(self.summary_box)
        box_layout.addWidget(self.summary_area)
        box_layout.addLayout(self.summary_notes)
        self.summary_box.setVisible(False)
        self.raw = RawLinesPane()

        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        self.burst = BurstMonitor(controller, self.plots)  # burst credits: panel + overlay
        bottom_layout.addWidget(self.burst.panel)
        self.hosts = HostsPanel(socket_proto(controller.spec.tool, controller.spec.params))
        self._last_t: float | None = None  # the tool's last interval (the run's end for hosts)
        bottom_layout.addWidget(self.hosts)
        bottom_layout.addWidget(self.summary_box)
        bottom_layout.addWidget(self.raw, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.plots)
        self.splitter.addWidget(bottom)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title_label)
        layout.addWidget(self.command_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        self.baseline_pin = BaselinePin(self.plots, bridge, controller) if bridge else None
        if self.baseline_pin is not None:
            layout.addWidget(self.baseline_pin)
        layout.addWidget(self.splitter, 1)
        self.raw.toggle.toggled.connect(self._raw_toggled)

        controller.records.connect(self._on_records)
        controller.telemetry.connect(self.hosts.add_records)
        controller.line.connect(self.raw.add)
        controller.line.connect(self._ask_commands)  # stored before the tool's first line
        controller.finished.connect(self._on_finished)
        controller.failed.connect(self._on_failed)
        controller.changed.connect(self._update_title)
        self.progress.bind(controller)
        self._update_title()

    def _raw_toggled(self, expanded: bool) -> None:
        """Give the raw lines room when opened, hand it back to the plots when closed (the
        pane under the plots then as high as it needs, no more)."""
        lower = self.splitter.widget(1)
        if lower is None:
            return
        total = sum(self.splitter.sizes())
        if expanded:
            self.splitter.setSizes([max(total - total * 2 // 5, 0), total * 2 // 5])
            return
        # Placed at once, so the first frame a user sees draws nothing over anything: a
        # verdict just added knows the lines it wraps to only once it has its width, and a
        # group box shown for the first time its title's room only once polished.
        for _ in range(3):
            layout = lower.layout()
            if layout is not None:
                layout.activate()
            bottom = lower.minimumSizeHint().height()
            if self.splitter.sizes()[1] == bottom:
                break
            self.splitter.setSizes([max(total - bottom, 0), bottom])

    @property
    def tab_title(self) -> str:
        controller = self.controller
        if controller.phase is RunPhase.FINISHED and controller.run is not None:
            mark = STATUS_MARKS.get(controller.run.status, "")
        elif controller.phase is RunPhase.FAILED:
            mark = "✗"
        else:
            mark = "●"
        return f"{mark} {controller.title}"

    def _update_title(self) -> None:
        controller = self.controller
        self.title_label.setText(
            f"Run {controller.title} — {controller.pair.description or controller.pair.name}"
        )
        if not self.commands:
            self.command_label.set_full_text(asked_text(controller.spec))
        self.titleChanged.emit(self.tab_title)

    def _ask_commands(self, _line: object = None) -> None:
        """Read the command lines the run stored (once), and show the main one."""
        run_id = self.controller.run_id
        if self._commands_asked or self.bridge is None or run_id is None:
            return
        self._commands_asked = True

        async def job(lib: Library) -> list[tuple[str, str, str]]:
            return recorded_command_lines(lib, run_id)

        def done(lines: list[tuple[str, str, str]]) -> None:
            if shiboken6.isValid(self):
                self.show_commands(lines)

        self.bridge.call(job, done, lambda _error: None)  # the asked-for text stays

    def show_commands(self, lines: list[tuple[str, str, str]]) -> None:
        """Head the tab with the command that ran (the client's, or fio's on its host)."""
        if not lines:
            self._commands_asked = False  # not stored yet: ask again at the end
            return
        self.commands = list(lines)
        line = lines[-1][2]
        self.command_label.set_full_text(f"$ {line}")
        self.command_label.set_tip("\n".join(f"{r} on {h}: {t}" for r, h, t in lines))

    def _on_records(self, records: list[Record]) -> None:
        self.plots.add_records(records)
        self._last_t = max(self._last_t or 0.0, records[-1].t) if records else self._last_t

    def _on_finished(self, run: Run) -> None:
        self._ask_commands()
        self.plots.finish()
        self.hosts.finish(self._last_t)
        self.raw.flush()
        self._fill_summary(run)
        if not self.raw.expanded:
            self._raw_toggled(False)  # room for the summary, the rest for the plots
        if run.status is RunStatus.CANCELLED:
            self._show_message("Cancelled: the samples measured until then are kept.", error=False)
        elif run.status is not RunStatus.COMPLETED:
            self._show_message(
                f"Run {run.status.value}: {run.error or 'no reason given'}", error=True
            )
        self._update_title()

    def _fill_summary(self, run: Run) -> None:
        """Status, duration, tool and the summary values, three label/value pairs a row
        (``SUMMARY_ROWS`` rows in view, the others a scroll away), then the verdict (what
        limited the run) and a note when the tool's own summary is missing, always in view."""
        for layout in (self.summary_grid, self.summary_notes):
            while layout.count():
                item = layout.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    widget.deleteLater()
        cells: list[tuple[str, str]] = [("Status", run.status.value)]
        if run.duration is not None:
            cells.append(("Duration", f"{run.duration:.1f} s"))
        cells += summary_rows(run.summary, run.spec.tool)
        if run.tool_version:
            cells.append(("Tool", run.tool_version))
        for i, (label, value) in enumerate(cells):
            row, column = divmod(i, SUMMARY_COLUMNS)
            name = QLabel(label)
            name.setStyleSheet("color: #555;")
            shown = QLabel(value)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            shown.setStyleSheet("font-weight: bold;")
            self.summary_grid.addWidget(name, row, column * 2)
            self.summary_grid.addWidget(shown, row, column * 2 + 1)
        for column in range(SUMMARY_COLUMNS * 2):
            self.summary_grid.setColumnStretch(column, 1 if column % 2 else 0)
        verdict = self.controller.diagnosis
        if verdict is not None:
            self.summary_notes.addWidget(VerdictLine(verdict))
        if not run.summary_complete and run.summary:
            note = QLabel("Derived from the intervals: the tool's own summary is missing.")
            note.setStyleSheet("color: #777;")
            self.summary_notes.addWidget(note)
        row = QLabel("X").sizeHint().height() + max(self.summary_grid.verticalSpacing(), 0)
        cells_height = self.summary_grid.sizeHint().height()
        self.summary_area.setFixedHeight(min(cells_height, SUMMARY_ROWS * row))
        self.summary_box.setVisible(True)

    def _on_failed(self, message: str) -> None:
        self._show_message(message, error=True)
        self._update_title()

    def _show_message(self, text: str, *, error: bool) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b71c1c;" if error else "color: #333;")
        self.message.setVisible(True)
