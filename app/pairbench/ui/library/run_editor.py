"""The selected run's label, tags and notes under the run list, with the actions on runs."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Run
from pairbench.domain.host_text import tags_text
from pairbench.ui.hosts.form_rows import error_label

_HINTS = (
    "e.g. same zone, after sysctl tuning",
    'instance=c6in.xlarge note="two words"',
    "Notes about this run",
)
READ_ONLY_NOTE = "Team runs are read-only: edit, delete or run again your own on this computer."


class RunEditor(QGroupBox):
    """Edits one selected run; Open, Delete… and Compare act on the selection. With
    ``read_only`` (the team library's runs) only Open is offered."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Selected run", parent)
        self.selected_label = QLabel("No run selected.")
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("e.g. same zone, after sysctl tuning")
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText('instance=c6in.xlarge note="two words"')
        self.tags_error = error_label()
        self.notes_edit = QPlainTextEdit()
        self.notes_edit.setPlaceholderText("Notes about this run")
        self.notes_edit.setMinimumHeight(54)
        self.save_button = QPushButton("Save changes")
        self.open_button = QPushButton("Open")
        self.delete_button = QPushButton("Delete…")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Compare the selected runs (select two or more)")
        self.pin_button = QPushButton("Add to comparison")  # pins them in the tray
        self.bulk = False  # several runs selected: Save edits them all
        self.read_only = False
        grid = QGridLayout(self)
        grid.addWidget(self.selected_label, 0, 0, 1, 4)
        grid.addWidget(QLabel("Label"), 1, 0)
        grid.addWidget(self.label_edit, 1, 1)
        grid.addWidget(QLabel("Tags"), 1, 2)
        grid.addWidget(self.tags_edit, 1, 3)
        grid.addWidget(self.tags_error, 2, 3)
        grid.addWidget(QLabel("Notes"), 3, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.notes_edit, 3, 1, 1, 3)
        buttons = QVBoxLayout()
        for button in (self.save_button, self.open_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.pin_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 1, 4, 3, 1)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 3)

    def show_selection(self, runs: list[Run]) -> None:
        """Fill the fields from one selected run; with several, the label and the tags edit
        them all (an empty label keeps theirs; tags are added, ``-key`` drops one)."""
        one = runs[0] if len(runs) == 1 else None
        many = len(runs) > 1
        writable = not self.read_only
        for widget in (self.label_edit, self.tags_edit, self.save_button):
            widget.setEnabled((one is not None or many) and writable)
        self.notes_edit.setEnabled(one is not None and writable)
        self.open_button.setEnabled(one is not None)
        self.delete_button.setEnabled(bool(runs) and writable)
        self.compare_button.setEnabled(True)  # this computer's runs, or the team's
        self.pin_button.setEnabled(bool(runs))
        self.tags_error.hide()
        self.bulk = many
        if one is None:
            if many and self.read_only:
                text = f"{len(runs)} team runs selected · {READ_ONLY_NOTE}"
            elif many:
                text = f"{len(runs)} runs selected: a label or tags here apply to all of them."
            else:
                text = READ_ONLY_NOTE if self.read_only else "No run selected."
            self.selected_label.setText(text)
            self.label_edit.clear()
            self.tags_edit.clear()
            self.notes_edit.clear()
            self.label_edit.setPlaceholderText(
                "a new label for all (empty: each keeps its own)" if many else ""
            )
            self.tags_edit.setPlaceholderText(
                "tags to set on all, e.g. zone=a; -key drops one" if many else ""
            )
            self.save_button.setText(f"Save to {len(runs)} runs" if many else "Save changes")
            return
        self.save_button.setText("Save changes")
        hints = ("", "", "") if self.read_only else _HINTS
        self.label_edit.setPlaceholderText(hints[0])
        self.tags_edit.setPlaceholderText(hints[1])
        self.notes_edit.setPlaceholderText(hints[2])
        self.selected_label.setText(
            f"{'Team run' if self.read_only else 'Run'} {one.id}: {one.spec.tool} on "
            f"{one.spec.pair}, {one.status.value}" + (f" · {READ_ONLY_NOTE}" * self.read_only)
        )
        self.label_edit.setText(one.label)
        self.tags_edit.setText(tags_text(one.tags))
        self.notes_edit.setPlainText(one.notes)

    def show_tags_error(self, text: str) -> None:
        self.tags_error.setText(text)
        self.tags_error.show()
