"""A plot legend that sits beside the data, never over it, and toggles a curve from its text.

``place_legend`` puts a ``ClickableLegend`` in the plot's own layout, right of the view box
(the axes keep their room, the curves theirs), and makes it the plot's legend, so every named
item added to the plot gets an entry. A click on an entry, its swatch or its name, hides or
shows its curve; a hidden curve's name turns grey.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt

TEXT_COLOR = "#222"
HIDDEN_COLOR = "#aaa"
LEGEND_COLUMN = 3  # after the left axis (0), the view box (1) and the right axis (2)
ROWS_PER_COLUMN = 8


class ClickableLegend(pg.LegendItem):
    """A legend whose entries toggle their curve when the swatch *or the name* is clicked.

    ``sigSampleClicked`` (pyqtgraph's) is emitted with the toggled item either way.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sigSampleClicked.connect(self._restyle)

    def addItem(self, item: Any, name: str) -> None:
        super().addItem(item, name)
        sample, label = self.items[-1]
        sample.setToolTip(f"Click to hide or show {name}")
        label.setToolTip(f"Click to hide or show {name}")
        label.setCursor(Qt.CursorShape.PointingHandCursor)
        sample.setCursor(Qt.CursorShape.PointingHandCursor)
        self._restyle(item)
        columns = max(1, -(-len(self.items) // ROWS_PER_COLUMN))
        if columns != self.columnCount:
            self.setColumnCount(columns)

    def names(self) -> list[str]:
        return [str(label.text) for _sample, label in self.items]

    def entry(self, name: str) -> tuple[Any, Any] | None:
        """(sample, label) of the entry named ``name``."""
        return next(((s, lab) for s, lab in self.items if lab.text == name), None)

    def label_rect(self, name: str) -> QRectF:
        """Where the name of entry ``name`` is drawn, in scene coordinates."""
        found = self.entry(name)
        if found is None:
            raise KeyError(name)
        label = found[1]
        return QRectF(label.mapRectToScene(label.boundingRect()))

    def toggle(self, item: Any) -> None:
        """Hide or show ``item``'s curve (as a click on its entry does)."""
        item.setVisible(not item.isVisible())
        for sample, _label in self.items:
            if sample.item is item:
                sample.update()
        self.sigSampleClicked.emit(item)

    def _restyle(self, item: Any) -> None:
        for sample, label in self.items:
            if sample.item is item:
                color = TEXT_COLOR if item.isVisible() else HIDDEN_COLOR
                label.setText(label.text, color=color)

    def mouseClickEvent(self, ev: Any) -> None:
        """A click on an entry's name toggles its curve (the swatch handles its own clicks)."""
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        pos = ev.pos()
        for sample, label in self.items:
            if label.geometry().contains(pos) or sample.geometry().contains(pos):
                ev.accept()
                self.toggle(sample.item)
                return

    def updateSize(self) -> None:
        """Ask the plot's layout for the room the entries need (pyqtgraph's own version moves
        the legend to the plot's corner, over the data)."""
        width = height = 0.0
        for row in range(self.layout.rowCount()):
            row_height = row_width = 0.0
            for col in range(self.layout.columnCount()):
                item = self.layout.itemAt(row, col)
                if item is not None:
                    row_width += max(item.geometry().width(), item.preferredWidth()) + 5
                    row_height = max(row_height, item.preferredHeight())
            width = max(width, row_width)
            height += row_height
        self.setMinimumSize(width, height)
        self.setMaximumSize(width, height)
        self.updateGeometry()

    def hoverEvent(self, ev: Any) -> None:
        """No dragging: the legend stays in its column beside the plot."""

    def mouseDragEvent(self, ev: Any) -> None:
        ev.ignore()


def place_legend(plot_item: pg.PlotItem, **kwargs: Any) -> ClickableLegend:
    """A ``ClickableLegend`` beside ``plot_item``'s view box, as the plot's legend."""
    legend = ClickableLegend(**kwargs)
    plot_item.layout.addItem(legend, 2, LEGEND_COLUMN)
    plot_item.layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    plot_item.legend = legend
    return legend
