"""A run form's field for a file of the user's that a tool runs (a fio job file, a uperf
profile): its text (editable), a button that reads one from this computer, and what the file
holds (or what is wrong with it), shown before the run starts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

_ERROR_STYLE = "color: #b3261e;"


@dataclass(frozen=True, slots=True)
class FileKind:
    """What a field holds: the button's and the dialog's words, the text shown while empty,
    and the service functions that check a text (→ its name and the lines that describe it)
    and read a file (→ its name and text); both raise ``ValueError`` with what to change."""

    button: str
    tooltip: str
    dialog: str
    file_filter: str
    placeholder: str
    accessible: str
    empty: str
    check: Callable[[str], list[str]]
    read: Callable[[str], tuple[str, str]]


class TextFileField(QWidget):
    """A file's text with what it holds listed below; ``chosen`` gives the name of a file read
    with the button, ``changed`` fires on every edit."""

    changed = Signal()
    chosen = Signal(str)

    def __init__(self, kind: FileKind, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.valid = False
        self.edit = QPlainTextEdit()
        self.edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.edit.setPlaceholderText(kind.placeholder)
        self.edit.setMaximumHeight(120)
        self.edit.setAccessibleName(kind.accessible)
        # Tab leaves the text (to the next field), as in every other field of the form; fio
        # and uperf read spaces where a tab would be.
        self.edit.setTabChangesFocus(True)
        self.edit.textChanged.connect(self._edited)
        self.open_button = QPushButton(kind.button)
        self.open_button.setToolTip(kind.tooltip)
        self.open_button.clicked.connect(self._open)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip(kind.empty)
        self.clear_button.clicked.connect(self._clear)
        self.jobs_label = QLabel()  # what the file holds (a fio job file: its jobs)
        self.jobs_label.setWordWrap(True)
        self.jobs_label.setAccessibleName(f"What the {kind.accessible} holds")
        self.jobs_label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.edit)
        layout.addWidget(self.jobs_label)
        self._edited()

    def text(self) -> str:
        """The file's text ("" when none)."""
        return self.edit.toPlainText() if self.edit.toPlainText().strip() else ""

    def set_text(self, text: str) -> None:
        """Show ``text`` (and what it holds)."""
        self.edit.setPlainText(text)

    def load(self, path: str) -> bool:
        """Read the file at ``path`` into the field; False (the error shown) if it cannot be
        read or run."""
        try:
            name, text = self.kind.read(path)
        except ValueError as exc:
            self._show_error(str(exc))
            return False
        self.set_text(text)
        self.chosen.emit(name)
        return True

    def _open(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, self.kind.dialog, "", self.kind.file_filter
        )
        if path:
            self.load(path)

    def _clear(self) -> None:
        self.set_text("")
        self.chosen.emit("")

    def _edited(self) -> None:
        text = self.text()
        self.valid = False
        if not text:
            self.jobs_label.setStyleSheet("")
            self.jobs_label.setText(self.kind.empty)
        else:
            try:
                lines = self.kind.check(text)
            except ValueError as exc:
                self._show_error(str(exc))
            else:
                self.valid = True
                self.jobs_label.setStyleSheet("")
                self.jobs_label.setText("\n".join(lines))
        self.changed.emit()

    def _show_error(self, message: str) -> None:
        self.jobs_label.setStyleSheet(_ERROR_STYLE)
        self.jobs_label.setText(message)
