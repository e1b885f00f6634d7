"""Read-only tables of named rows (hosts, pairs): one row selected, found and chosen by name."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

MIN_COLUMN = 36  # px: a column cut to fit keeps at least this


def cell(text: str, tooltip: str | None = None) -> QTableWidgetItem:
    """A table cell whose tooltip repeats its text unless another is given."""
    item = QTableWidgetItem(text)
    item.setToolTip(tooltip if tooltip is not None else text)
    return item


def button_row(*buttons: QPushButton | None) -> QHBoxLayout:
    """The buttons in a row; ``None`` is a stretch."""
    row = QHBoxLayout()
    for button in buttons:
        if button is None:
            row.addStretch(1)
        else:
            row.addWidget(button)
    return row


class NameTable(QTableWidget):
    """Rows keyed by a name, whole rows selected one at a time, never edited in place."""

    def __init__(self, headers: list[str], parent: QWidget | None = None) -> None:
        super().__init__(0, len(headers), parent)
        self.names: list[str] = []
        self.setHorizontalHeaderLabels(headers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setStretchLastSection(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)

    def set_rows(self, rows: list[tuple[str, list[QTableWidgetItem]]]) -> None:
        """Show ``(name, cells)`` rows, in order."""
        self.names = [name for name, _cells in rows]
        self.setRowCount(len(rows))
        for row, (_name, cells) in enumerate(rows):
            for column, item in enumerate(cells):
                self.setItem(row, column, item)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns as wide as their contents while the table has the room; else each cut
        in proportion (a cut cell ends in "…" and shows whole in its tooltip), so the
        table never scrolls sideways."""
        self.resizeColumnsToContents()
        wanted = [self.columnWidth(c) for c in range(self.columnCount())]
        room = self.viewport().width()
        total = sum(wanted)
        if total <= room or room <= 0:
            return
        widths = [max(MIN_COLUMN, width * room // total) for width in wanted]
        widths[widths.index(max(widths))] -= max(0, sum(widths) - room) + 2  # the rounding
        for column, width in enumerate(widths):
            self.setColumnWidth(column, width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def selected_name(self) -> str | None:
        rows = self.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.names):
            return None
        return self.names[rows[0].row()]

    def select_name(self, name: str | None) -> None:
        """Select the row of ``name`` (nothing changes when no row has it)."""
        if name in self.names:
            self.selectRow(self.names.index(name))
