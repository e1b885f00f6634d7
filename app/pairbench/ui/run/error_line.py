"""The run panel's error line: why a run cannot start, in words (never a traceback)."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

# The CLI's own hint in an engine message, meaningless in the window (which has a button).
_CLI_HINT_RE = re.compile(r"\s*\(--accept-new-host-key on the command line\)")
_ERROR_STYLE = (
    "QLabel { color: #8e0000; background: #fdecea; border: 1px solid #f5c2c0;"
    " border-radius: 3px; padding: 6px; }"
)


def friendly_error(message: str) -> str:
    """An engine error for the window (the CLI's own hints removed)."""
    return _CLI_HINT_RE.sub("", message).strip()


class ErrorLine(QLabel):
    """A red, selectable line, hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("run_error")
        self.setWordWrap(True)
        self.setStyleSheet(_ERROR_STYLE)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setVisible(False)

    def show_error(self, text: str) -> None:
        self.setText(text)
        self.setVisible(True)

    def clear_error(self) -> None:
        self.setVisible(False)
        self.clear()
