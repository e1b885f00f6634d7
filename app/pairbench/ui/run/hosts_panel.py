"""The Hosts panel of a run's tab: both hosts' telemetry, live (``ui/run/hosts_table.py``).

Fed by the ``RunController``'s telemetry records; redrawn at most every ``REDRAW_MS`` and only
when something changed; hidden until the first telemetry arrives. Live it shows each figure's
latest value; once the run ended, each figure's median over the run (up to the tool's last
interval: the hosts idle after it). ``show_figures`` fills it from a stored run's figures
(the run detail's Hosts tab).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QGroupBox,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Record
from pairbench.ui.run.hosts_table import HostsTable, hosts_table, take_latest

REDRAW_MS = 250


class HostsPanel(QGroupBox):
    """Rows client and server, a column per figure that tells what limits the run."""

    def __init__(self, proto: str = "", parent: QWidget | None = None) -> None:
        super().__init__("Hosts", parent)
        self.setObjectName("hosts_panel")
        self.proto = proto
        self.figures: dict[tuple[str, str], float] = {}
        self._history: dict[tuple[str, str], list[tuple[float, float]]] = {}
        self.table = HostsTable((), ())
        # One line per host, scrolled sideways when the tab is narrower than the table: the
        # panel never widens the window (1280 px) nor wraps into rows it has no height for.
        inner = QWidget()
        self._grid = QGridLayout(inner)
        self._grid.setContentsMargins(8, 2, 8, 2)
        self._grid.setHorizontalSpacing(16)
        self._grid.setVerticalSpacing(2)
        self._scroll = QScrollArea()
        self._scroll.setWidget(inner)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self._scroll)
        self._labels: dict[tuple[int, int], QLabel] = {}
        self._shape: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self.setVisible(False)

    def add_records(self, records: list[Record]) -> None:
        """Telemetry records of the live run (the latest value of each figure is shown)."""
        take_latest(self.figures, records)
        for stream, t, metrics, values in records:
            for metric, value in zip(metrics, values, strict=True):
                self._history.setdefault((stream, metric), []).append((t, value))
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def show_figures(self, figures: Mapping[tuple[str, str], float]) -> None:
        """Show these figures now (a stored run's)."""
        self.figures = dict(figures)
        self._dirty = True
        self._redraw()

    def finish(self, last_t: float | None = None) -> None:
        """The run ended: show each figure's median over the run (samples up to just after
        ``last_t``, the tool's last interval, when known), then stop the timer."""
        medians = {}
        for key, samples in self._history.items():
            kept = [v for t, v in samples if (last_t is None or t <= last_t + 0.6) and v == v]
            if kept:
                medians[key] = statistics.median(kept)
        if medians:
            self.figures = medians
            self.setTitle("Hosts (medians over the run)")
        self._dirty = True
        self._redraw()
        self._timer.stop()

    def texts(self) -> dict[str, dict[str, str]]:
        """What the panel shows: role → column → text (for tests and copying)."""
        return {
            role: dict(zip(self.table.columns, cells, strict=True))
            for role, cells in self.table.rows
        }

    def _redraw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        table = hosts_table(self.figures, self.proto)
        self.table = table
        shape = (table.columns, tuple(role for role, _ in table.rows))
        if shape != self._shape:
            self._rebuild(shape)
        for r, (_role, cells) in enumerate(table.rows, start=1):
            for c, text in enumerate(cells, start=1):
                label = self._labels[(r, c)]
                if label.text() != text:
                    label.setText(text)
        self.setVisible(bool(table.rows))

    def _rebuild(self, shape: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
        self._shape = shape
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._labels.clear()
        columns, roles = shape
        for c, title in enumerate(columns, start=1):
            head = QLabel(title)
            head.setStyleSheet("color: #555;")
            self._grid.addWidget(head, 0, c)
        for r, role in enumerate(roles, start=1):
            name = QLabel(role)
            name.setStyleSheet("color: #555;")
            self._grid.addWidget(name, r, 0)
            for c in range(1, len(columns) + 1):
                label = QLabel("—")
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                label.setStyleSheet("font-weight: bold;")
                self._labels[(r, c)] = label
                self._grid.addWidget(label, r, c)
        self._grid.setColumnStretch(len(columns) + 1, 1)
        # The height of its lines, from the font (a hidden tab's labels have no size yet).
        bold = QFont(self.font())
        bold.setBold(True)
        line = QFontMetrics(bold).height() + self._grid.verticalSpacing()
        margins = self._grid.contentsMargins()
        bar = self._scroll.horizontalScrollBar().sizeHint().height()
        rows = 1 + len(roles)
        self._scroll.setFixedHeight(rows * line + margins.top() + margins.bottom() + bar + 2)
