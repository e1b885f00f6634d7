"""Form rows with an inline error under each field, and the save-through-the-bridge dialog base."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.failures import FieldError, FormErrors
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.library.jobs import call_for, error_text

ERROR_STYLE = "color: #b3261e;"
NOTE_STYLE = "color: palette(placeholder-text);"


def error_label() -> QLabel:
    """A hidden, wrapping label for one error message."""
    label = QLabel()
    label.setStyleSheet(ERROR_STYLE)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


class FormRows:
    """A ``QFormLayout`` whose fields each carry an error label right under them."""

    def __init__(self) -> None:
        self.layout = QFormLayout()
        self.layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.errors: dict[str, QLabel] = {}
        self.fields: dict[str, QWidget] = {}
        self._rows: dict[str, QWidget] = {}

    def add(self, key: str, label: str, field: QWidget, note: QLabel | None = None) -> QWidget:
        """A row ``label: field`` with its error label (and a note under it, if given)."""
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(field)
        if note is not None:
            column.addWidget(note)
        error = error_label()
        column.addWidget(error)
        self.layout.addRow(label, box)
        self.errors[key] = error
        self.fields[key] = field
        self._rows[key] = box
        return box

    def set_visible(self, key: str, visible: bool) -> None:
        """Show or hide a whole row."""
        self.layout.setRowVisible(self._rows[key], visible)

    def clear(self) -> None:
        for label in self.errors.values():
            label.clear()
            label.hide()

    def show(self, errors: dict[str, str]) -> dict[str, str]:
        """Show each error under its field; returns the errors that have no field here."""
        self.clear()
        rest: dict[str, str] = {}
        first: QWidget | None = None
        for key, message in errors.items():
            label = self.errors.get(key)
            if label is None:
                rest[key] = message
                continue
            label.setText(message)
            label.show()
            if first is None:
                first = self.fields[key]
        if first is not None:
            first.setFocus()
        return rest


class SavingDialog(QDialog):
    """A dialog whose Save runs an engine job: errors come back inline, success closes it."""

    def __init__(self, bridge: EngineBridge, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self.bridge = bridge
        self.rows = FormRows()
        self.general_error = error_label()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.result_value: Any = None
        self.saving = False

    def finish_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.addLayout(self.rows.layout)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)

    def submit(self) -> None:
        """Validate and save through the bridge (subclasses give the job)."""
        if self.saving:
            return
        self.rows.clear()
        self.general_error.hide()
        job = self.make_job()
        if job is None:
            return
        self.saving = True
        self.save_button.setEnabled(False)
        call_for(self, self.bridge, job, self._saved, self._failed)

    def make_job(self) -> EngineJob[Any] | None:
        raise NotImplementedError

    def _saved(self, value: Any) -> None:
        self.saving = False
        self.result_value = value
        self.accept()

    def _failed(self, error: BaseException) -> None:
        self.saving = False
        self.save_button.setEnabled(True)
        self.show_errors(error)

    def show_errors(self, error: BaseException) -> None:
        if isinstance(error, FormErrors):
            errors = error.by_field()
        elif isinstance(error, FieldError):
            errors = {error.field: str(error)}
        else:
            errors = {"": error_text(error)}
        rest = self.rows.show(errors)
        if rest:
            self.general_error.setText("\n".join(rest.values()))
            self.general_error.show()

    def field_errors(self) -> dict[str, str]:
        """The errors shown now, by field (for tests and screen readers)."""
        shown = {k: v.text() for k, v in self.rows.errors.items() if v.text()}
        if self.general_error.text() and not self.general_error.isHidden():
            shown[""] = self.general_error.text()
        return shown


def blank_to_none(text: str) -> str | None:
    """A line edit's text without outer spaces, or None when empty (meaning the default)."""
    return text.strip() or None
