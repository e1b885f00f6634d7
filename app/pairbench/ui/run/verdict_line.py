"""The verdict's line at the end of a run's summary: one line, elided to the room there is,
the whole verdict and its evidence in the tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from pairbench.domain.diagnosis import Diagnosis


class VerdictLine(QLabel):
    """ "Limited by cpu on the client: …", never wider than its place (1280 px windows)."""

    def __init__(self, verdict: Diagnosis, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdict")
        self.full_text = verdict.sentence()
        self.setToolTip("\n".join([verdict.sentence(), *verdict.evidence[1:]]))
        self.setStyleSheet("font-weight: bold;")
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(self.full_text)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        elided = self.fontMetrics().elidedText(
            self.full_text, Qt.TextElideMode.ElideRight, max(self.width(), 40)
        )
        if elided != self.text():
            self.setText(elided)
