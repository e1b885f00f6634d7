"""A run's plots in rows (throughput, TCP, UDP, ...), each row wrapped to the width it gets.

A row's plots sit side by side while each keeps ``PLOT_WIDTH`` pixels (room for its axes,
its legend and ~200 px of data); in a narrower window the row wraps onto more lines, the
last plot of a line spanning what is left, so a plot is never squeezed under its legend and
nothing scrolls sideways (the run's scroll area scrolls down instead).
"""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QVBoxLayout, QWidget

from pairbench.ui.plotting.layout import ROW_ORDER, ROWS, sort_key
from pairbench.ui.plotting.live_plot import LivePlot

PLOT_WIDTH = 380  # px a plot keeps before its row wraps


def columns_for(width: int, count: int) -> int:
    """How many of ``count`` plots fit side by side in ``width`` pixels (at least one)."""
    return max(1, min(count, width // PLOT_WIDTH))


class PlotRows(QWidget):
    """The rows of plots under one another; ``first`` (a placeholder) stays on top."""

    def __init__(self, first: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(first)
        self._grids: dict[str, QGridLayout] = {}
        self._widgets: dict[str, QWidget] = {}
        self._plots: dict[str, list[LivePlot]] = {}
        self._columns: dict[str, int] = {}

    def add(self, plot: LivePlot) -> None:
        """Put ``plot`` in its row, in the table's order."""
        row_id = plot.spec.row
        plots = self._plots.setdefault(row_id, [])
        plots.append(plot)
        plots.sort(key=lambda p: sort_key(p.spec))
        if row_id not in self._grids:
            widget = QWidget()
            grid = QGridLayout(widget)
            grid.setContentsMargins(0, 0, 0, 0)
            self._grids[row_id] = grid
            self._widgets[row_id] = widget
            order = sorted(self._grids, key=ROW_ORDER.__getitem__)
            # index + 1: the placeholder stays first
            self._layout.insertWidget(order.index(row_id) + 1, widget)
        self._place(row_id)

    def lines(self, row_id: str) -> list[list[LivePlot]]:
        """The plots of a row, line by line as they are shown."""
        plots = self._plots.get(row_id, [])
        columns = self._columns.get(row_id, 1)
        return [plots[i : i + columns] for i in range(0, len(plots), columns)]

    def _place(self, row_id: str) -> None:
        plots = self._plots[row_id]
        grid = self._grids[row_id]
        columns = columns_for(self.width(), len(plots))
        self._columns[row_id] = columns
        while grid.count():
            grid.takeAt(0)
        for i, plot in enumerate(plots):
            line, column = divmod(i, columns)
            last = i == len(plots) - 1
            grid.addWidget(plot, line, column, 1, columns - column if last else 1)
        for column in range(grid.columnCount()):
            grid.setColumnStretch(column, 1 if column < columns else 0)
        lines = -(-len(plots) // columns)
        for line in range(grid.rowCount()):
            grid.setRowStretch(line, 1 if line < lines else 0)
        stretch = next(r.stretch for r in ROWS if r.id == row_id)
        self._layout.setStretchFactor(self._widgets[row_id], stretch * lines)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        for row_id, plots in self._plots.items():
            if columns_for(self.width(), len(plots)) != self._columns.get(row_id):
                self._place(row_id)
