"""The run form's field for a job file's ``${VAR}`` values (``jobfile_env``): a line per
variable the job file above it uses, made as the file is read or edited; its value is the
parameter's ``NAME=value`` items (a field left empty gives no value: the run then says which
one it needs)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from pairbench.services.fio_jobs import format_env_values, read_env_values

_NONE = "The job file uses no ${VAR}."


class JobEnvField(QWidget):
    """One line edit per variable; ``changed`` fires on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edits: dict[str, QLineEdit] = {}
        self._kept: dict[str, str] = {}  # values given before their variable appeared
        self.note = QLabel(_NONE)
        self.note.setStyleSheet("color: #666;")
        self.rows = QFormLayout()
        self.rows.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addLayout(self.rows)

    def set_variables(self, names: list[str]) -> None:
        """Show a line for each of ``names`` (a value typed for a name kept stays)."""
        if names == list(self.edits):
            return
        self._kept.update({name: edit.text() for name, edit in self.edits.items()})
        while self.rows.rowCount():
            self.rows.removeRow(0)
        self.edits = {}
        for name in names:
            edit = QLineEdit(self._kept.get(name, ""))
            edit.setObjectName(f"jobfile_env_{name}")
            edit.setPlaceholderText(f"the value of ${{{name}}}")
            edit.setAccessibleName(f"Value of the job file's variable {name}")
            edit.textChanged.connect(lambda _text: self.changed.emit())
            self.rows.addRow(QLabel(f"${{{name}}}"), edit)
            self.edits[name] = edit
        self.note.setText(
            "Values of the job file's variables, written into the file that runs:"
            if names
            else _NONE
        )
        self.changed.emit()

    def text(self) -> str:
        """``NAME=value`` of each variable given a value."""
        return format_env_values({n: e.text().strip() for n, e in self.edits.items()})

    def set_text(self, raw: str) -> None:
        """Fill the lines from ``NAME=value`` items (those of variables not shown yet are kept
        for when they are)."""
        values = read_env_values(raw)
        self._kept.update(values)
        for name, edit in self.edits.items():
            edit.setText(values.get(name, ""))
