"""The Hosts panel of a run's tab: both hosts' telemetry, live (``ui/run/hosts_table.py``).

Fed by the ``RunController``'s telemetry records; redrawn at most every ``REDRAW_MS`` and only
when something changed; hidden until the first telemetry arrives. ``show_figures`` fills it
from a stored run's figures (the run detail's Hosts tab).
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QWidget

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
        self.table = HostsTable((), ())
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(8, 4, 8, 4)
        self._grid.setHorizontalSpacing(16)
        self._grid.setVerticalSpacing(2)
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
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def show_figures(self, figures: Mapping[tuple[str, str], float]) -> None:
        """Show these figures now (a stored run's)."""
        self.figures = dict(figures)
        self._dirty = True
        self._redraw()

    def finish(self) -> None:
        """The run ended: draw what came last, then stop the timer."""
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
