"""The verdict at the end of a run's summary: the whole sentence, wrapped to the lines it needs
(the limit and its side first, never cut), its evidence in the tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from pairbench.domain.diagnosis import Diagnosis


class VerdictLine(QLabel):
    """ "Limited by cpu on the client: …", wrapped to the width there is (1280 px windows):
    as high as its lines, never wider than its place."""

    def __init__(self, verdict: Diagnosis, parent: QWidget | None = None) -> None:
        super().__init__(verdict.sentence(), parent)
        self.setObjectName("verdict")
        self.full_text = verdict.sentence()
        self.setToolTip("\n".join([verdict.sentence(), *verdict.evidence[1:]]))
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setStyleSheet("font-weight: bold;")
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Ask for the height of the lines at this width (a splitter's pane keeps to it)."""
        super().resizeEvent(event)
        need = self.heightForWidth(self.width())
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)
