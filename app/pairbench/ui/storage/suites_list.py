"""The stored suites that stopped before the end (cancelled, interrupted, failed), each
resumable; and, when suites were interrupted (the program or the host went away), a bar
that says so and offers to resume the newest (never a dialog at start-up)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.timestamps import time_text
from pairbench.services.library import Library
from pairbench.services.storage_watch import SuiteRow, resumable_suites
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import error_text
from pairbench.ui.library.message_bar import MessageBar

LIST_HEIGHT = 96  # px: three suites; the window's height is for the live plots


class InterruptedBar(MessageBar):
    """ "Suite #3 was interrupted…" with a Resume button for it."""

    resumeRequested = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("storage_interrupted")
        self.suite_id: int | None = None
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("storage_resume_interrupted")
        self.resume_button.clicked.connect(self._resume)
        row = self.layout()
        assert isinstance(row, QHBoxLayout)
        row.insertWidget(1, self.resume_button, 0, Qt.AlignmentFlag.AlignTop)

    def offer(self, rows: list[SuiteRow]) -> None:
        """Say which suites were interrupted (``rows``, newest first); hide when none."""
        if not rows:
            self.hide()
            self.suite_id = None
            return
        newest = rows[0]
        self.suite_id = newest.id
        others = f" ({len(rows) - 1} more in the list below)" if len(rows) > 1 else ""
        self.show_message(
            "info",
            f"Suite {newest.title} was interrupted: {newest.error or 'it stopped'}. Its "
            f"finished jobs are kept; resume it to go on from the next job{others}.",
        )
        self.resume_button.setText(f"Resume #{newest.id}")

    def _resume(self) -> None:
        if self.suite_id is not None:
            self.resumeRequested.emit(self.suite_id)
            self.hide()


class SuitesList(QWidget):
    """Suites to resume, read through the bridge; ``resumeRequested(id)`` on Resume."""

    resumeRequested = Signal(int)
    loaded = Signal(list)  # list[SuiteRow]
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.rows: list[SuiteRow] = []
        title = QLabel("<b>Stopped suites</b>")
        title.setToolTip("Suites cancelled, interrupted or failed: resume one to go on")
        self.list = QListWidget()
        self.list.setObjectName("storage_suites")
        self.list.setMaximumHeight(LIST_HEIGHT)
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.list.itemDoubleClicked.connect(lambda _item: self._resume())
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("storage_resume")
        self.resume_button.setToolTip("Go on from the suite's next unfinished job")
        self.resume_button.clicked.connect(self._resume)
        reload_button = QToolButton()
        reload_button.setText("↻")
        reload_button.setToolTip("Reload the suites from the library")
        reload_button.clicked.connect(self.refresh)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(title, 1)
        row.addWidget(reload_button)
        row.addWidget(self.resume_button)  # on the title's line: in view with the title
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.list)
        self._selection_changed()

    def refresh(self) -> None:
        async def job(library: Library) -> list[SuiteRow]:
            return resumable_suites(library)

        def done(rows: list[SuiteRow]) -> None:
            if shiboken6.isValid(self):
                self.set_rows(rows)

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self.failed.emit(f"Could not read the suites: {error_text(error)}")

        self.bridge.call(job, done, failed)

    def set_rows(self, rows: list[SuiteRow]) -> None:
        selected = self.selected_id()
        self.rows = list(rows)
        self.list.clear()
        for row in rows:
            when = time_text(row.created_at, "%Y-%m-%d %H:%M")
            item = QListWidgetItem(f"{row.title} — {row.status}, {when}")
            item.setData(Qt.ItemDataRole.UserRole, row.id)
            item.setToolTip(f"{row.title}\n{row.status}: {row.error or 'stopped'}")
            self.list.addItem(item)
            if row.id == selected:
                item.setSelected(True)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self.setVisible(bool(rows))
        self._selection_changed()
        self.loaded.emit(self.rows)

    def selected_id(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def select(self, suite_id: int) -> bool:
        for index in range(self.list.count()):
            item = self.list.item(index)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == suite_id:
                self.list.setCurrentItem(item)
                return True
        return False

    def set_busy(self, busy: bool) -> None:
        """While a suite runs, nothing else may be resumed (one suite at a time)."""
        self.list.setProperty("busy", busy)
        self._selection_changed()

    def _selection_changed(self) -> None:
        busy = bool(self.list.property("busy"))
        self.resume_button.setEnabled(self.selected_id() is not None and not busy)

    def _resume(self) -> None:
        suite_id = self.selected_id()
        if suite_id is not None and self.resume_button.isEnabled():
            self.resumeRequested.emit(suite_id)
