"""A one-line label that never asks for more width than it gets: its text is cut with "…" on
the right (the start, which says what the line is about, stays) and shown whole in its tooltip.

For texts that change while a window is shown (a run's progress, a plot's readout, a
command line): a plain ``QLabel``'s minimum width is its text's, so a long text widened the
dock or the window, or was cut on the left by a right-aligned label.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARS = 4  # the least width it asks for, in average characters


class ElidedLabel(QLabel):
    """``set_full_text`` (or ``setText``) keeps the whole text; ``text()`` is what is drawn."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, tip: str = "") -> None:
        super().__init__(parent)
        self._full = ""
        self._tip = tip  # said in the tooltip after the text (or alone when nothing is cut)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setWordWrap(False)
        self.set_full_text(text)

    def full_text(self) -> str:
        """The whole text, as given."""
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self._elide()

    def setText(self, text: str) -> None:
        self.set_full_text(text)

    def set_tip(self, tip: str) -> None:
        """What the tooltip adds to the text (e.g. what a note means)."""
        self._tip = tip
        self._elide()

    @property
    def elided(self) -> bool:
        """True when the text is cut."""
        return super().text() != self._full

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(QFontMetrics(self.font()).averageCharWidth() * MIN_CHARS, hint.height())

    def sizeHint(self) -> QSize:
        metrics = QFontMetrics(self.font())
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance(self._full) + margins.left() + margins.right() + 2
        return QSize(width, super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(self.contentsRect().width(), 0)
        metrics = QFontMetrics(self.font())
        shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        if not self._full:
            shown = ""
        QLabel.setText(self, shown)
        parts = [self._full] if shown != self._full and self._full else []
        if self._tip:
            parts.append(self._tip)
        self.setToolTip("\n\n".join(parts))
