"""A one-message bar (error, info, ok) shown above a view, closable; never a traceback.

An "ok" message (something done: saved, imported, published) goes by itself after
``OK_SECONDS``; an error or a notice stays until closed or replaced.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton

BANNER = "QFrame#{name} {{ background: {bg}; border: 1px solid {border}; border-radius: 4px; }}"
OK_SECONDS = 8
_MESSAGE_STYLES = {
    "error": ("#fde7e9", "#b3261e"),
    "info": ("#e7f3fe", "#3a78b5"),
    "ok": ("#e6f4ea", "#1b7f3b"),
}


class MessageBar(QFrame):
    """One message (error, info, ok) above the panel, with a close button."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("messageBar")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 4, 4)
        row.addWidget(self.label, 1)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.kind = ""
        self.hide_timer = QTimer(self)  # an "ok" message's time on screen
        self.hide_timer.setSingleShot(True)
        self.hide_timer.setInterval(OK_SECONDS * 1000)
        self.hide_timer.timeout.connect(self.hide)
        self.hide()

    def show_message(self, kind: str, text: str) -> None:
        bg, border = _MESSAGE_STYLES[kind]
        self.kind = kind
        self.setStyleSheet(BANNER.format(name="messageBar", bg=bg, border=border))
        self.label.setText(text)
        self.show()
        if kind == "ok":
            self.hide_timer.start()
        else:
            self.hide_timer.stop()

    def text(self) -> str:
        """The message shown, or "" when the bar is closed."""
        return "" if self.isHidden() else self.label.text()
