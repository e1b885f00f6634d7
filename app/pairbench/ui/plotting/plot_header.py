"""A plot's header line: its title, then either the values under the pointer (the readout)
or, with no pointer over the plots, how a partial last interval is drawn. Both are cut on
the right to the room there is, so the time and the first values always show and a narrow
plot is never widened; the whole text is in the tooltip."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from pairbench.ui.elided_label import ElidedLabel
from pairbench.ui.plotting.curves import PARTIAL_TIP


class PlotHeader(QWidget):
    """Title, partial note, readout."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_label = QLabel(title)
        font = QFont(self.title_label.font())
        font.setBold(True)
        self.title_label.setFont(font)
        self.readout = ElidedLabel()
        self.readout.setObjectName("readout")
        self.readout.setStyleSheet("color: #555;")
        self.readout.setVisible(False)
        self.note = ElidedLabel(tip=PARTIAL_TIP)
        self.note.setObjectName("partial_note")
        self.note.setStyleSheet("color: #777; font-size: 8pt;")
        self.note.setVisible(False)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(8)
        row.addWidget(self.title_label)
        row.addWidget(self.note, 1)
        row.addWidget(self.readout, 1)

    def set_note(self, text: str) -> None:
        self.note.set_full_text(text)
        self._show()

    def set_reading(self, text: str) -> None:
        """The readout ("" when the pointer left)."""
        self.readout.set_full_text(text)
        self._show()

    def _show(self) -> None:
        reading = bool(self.readout.full_text())
        self.readout.setVisible(reading)
        self.note.setVisible(bool(self.note.full_text()) and not reading)
