"""The run form's field for a fio job file: its text (editable), a "Job file…" button that
reads one from this computer, and the list of its jobs (or what is wrong with it), shown
before the run starts."""

from __future__ import annotations

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

from pairbench.services.fio_jobs import (
    JobFile,
    JobFileError,
    check_job_text,
    job_lines,
    read_job_file,
)

_ERROR_STYLE = "color: #b3261e;"


class JobTextField(QWidget):
    """A job file's text with its jobs listed below; ``chosen`` gives the name of a file
    read with the button, ``changed`` fires on every edit."""

    changed = Signal()
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job: JobFile | None = None
        self.edit = QPlainTextEdit()
        self.edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.edit.setPlaceholderText("[global]\nioengine=libaio\n…\n[job1]\nrw=randread")
        self.edit.setMaximumHeight(120)
        self.edit.setAccessibleName("fio job file text")
        # Tab leaves the text (to the next field), as in every other field of the form; fio
        # reads spaces where a tab would be.
        self.edit.setTabChangesFocus(True)
        self.edit.textChanged.connect(self._edited)
        self.open_button = QPushButton("Job file…")
        self.open_button.setToolTip("Read a fio job file from this computer")
        self.open_button.clicked.connect(self._open)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("No job file: run the options of the form")
        self.clear_button.clicked.connect(self._clear)
        self.jobs_label = QLabel()
        self.jobs_label.setWordWrap(True)
        self.jobs_label.setAccessibleName("Jobs of the job file")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.jobs_label.setFont(mono)
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
        """The job file's text ("" when none)."""
        return self.edit.toPlainText() if self.edit.toPlainText().strip() else ""

    def set_text(self, text: str) -> None:
        """Show ``text`` (and its jobs)."""
        self.edit.setPlainText(text)

    def load(self, path: str) -> bool:
        """Read the job file at ``path`` into the field; False (the error shown) if it
        cannot be read or run."""
        try:
            job = read_job_file(path)
        except JobFileError as exc:
            self._show_error(str(exc))
            return False
        self.set_text(job.text)
        self.chosen.emit(job.name)
        return True

    def _open(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, "fio job file", "", "fio job files (*.fio *.ini *.job);;All files (*)"
        )
        if path:
            self.load(path)

    def _clear(self) -> None:
        self.set_text("")
        self.chosen.emit("")

    def _edited(self) -> None:
        text = self.text()
        self.job = None
        if not text:
            self.jobs_label.setStyleSheet("")
            self.jobs_label.setText("No job file: the options of this form run.")
        else:
            try:
                self.job = check_job_text(text)
            except JobFileError as exc:
                self._show_error(str(exc))
            else:
                self.jobs_label.setStyleSheet("")
                count = len(self.job.jobs)
                head = f"{count} job{'s' if count != 1 else ''}:"
                self.jobs_label.setText("\n".join([head, *job_lines(self.job)]))
        self.changed.emit()

    def _show_error(self, message: str) -> None:
        self.jobs_label.setStyleSheet(_ERROR_STYLE)
        self.jobs_label.setText(message)
