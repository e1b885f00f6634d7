"""The Library's storage suites or campaigns, one row each with the runs it holds: Open
(double-click, Enter) shows it as the study it is (the Storage suite or Campaigns tab);
"List its runs" lists its runs in the Library."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.timestamps import time_text
from pairbench.services.library import Library
from pairbench.services.studies import Study, StudyKind, list_studies
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import call_for, error_text

HEADERS = {
    "suite": ("ID", "Started", "Host", "Test and target", "Label", "Runs", "Status", "Verdict"),
    "campaign": ("ID", "Started", "Pairs", "Name", "Label", "Runs", "Status", "Cells"),
}
RUNS_COLUMN = 5
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class StudiesTable(QTableWidget):
    """The studies; Enter opens the current one (double-click too)."""

    openRequested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.openRequested.emit()
            return
        super().keyPressEvent(event)


class StudiesList(QWidget):
    """Lists the library's suites or campaigns (read through the bridge)."""

    openRequested = Signal(object)  # Study: show it as the study it is
    runsRequested = Signal(object)  # Study: list its runs in the Library
    loaded = Signal(list)  # list[Study]
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.kind: StudyKind = "suite"
        self.studies: list[Study] = []
        self._generation = 0
        self.table = StudiesTable(0, len(HEADERS["suite"]))
        self.table.setObjectName("studies_table")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.doubleClicked.connect(lambda _index: self.open_current())
        self.table.openRequested.connect(self.open_current)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("study_open")
        self.runs_button = QPushButton("List its runs")
        self.runs_button.setObjectName("study_runs")
        self.open_button.clicked.connect(self.open_current)
        self.runs_button.clicked.connect(self._list_runs)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.runs_button)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    def load(self, kind: StudyKind) -> None:
        """List the library's suites or campaigns (off the GUI thread)."""
        self.kind = kind
        self._generation += 1
        generation = self._generation

        async def job(lib: Library) -> list[Study]:
            return list_studies(lib, kind)

        def done(studies: list[Study]) -> None:
            if generation == self._generation:
                self._show(studies)
                self.loaded.emit(studies)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.failed.emit(f"Cannot list the {kind}s: {error_text(error)}")

        call_for(self, self.bridge, job, done, failed)

    def _show(self, studies: list[Study]) -> None:
        keep = self.current()
        self.studies = studies
        headers = HEADERS[self.kind]
        table = self.table
        table.clearContents()
        table.setColumnCount(len(headers))
        table.setHorizontalHeaderLabels(list(headers))
        table.setRowCount(len(studies))
        for row, study in enumerate(studies):
            cells = (
                f"#{study.id}",
                time_text(study.created_at),
                study.where,
                study.title,
                study.label,
                str(study.runs),
                study.status,
                study.result,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column in (0, RUNS_COLUMN):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(row, column, item)
        table.resizeColumnsToContents()
        for column in (3, 4):  # the long texts: as wide as a few words, the rest elided
            table.setColumnWidth(column, min(table.columnWidth(column), 220))
        kept = None if keep is None else self.row_of(keep.kind, keep.id)
        if kept is not None:
            table.selectRow(kept)
        elif studies:
            table.selectRow(0)
        self._update_buttons()

    def row_of(self, kind: StudyKind, study_id: int) -> int | None:
        return next(
            (i for i, s in enumerate(self.studies) if (s.kind, s.id) == (kind, study_id)), None
        )

    def current(self) -> Study | None:
        """The selected study, if any."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.studies):
            return None
        return self.studies[rows[0].row()]

    def select(self, kind: StudyKind, study_id: int) -> bool:
        """Select a study; False when it is not listed."""
        row = self.row_of(kind, study_id)
        if row is None:
            return False
        self.table.selectRow(row)
        return True

    def open_current(self) -> None:
        study = self.current()
        if study is not None:
            self.openRequested.emit(study)

    def _list_runs(self) -> None:
        study = self.current()
        if study is not None:
            self.runsRequested.emit(study)

    def _update_buttons(self) -> None:
        on = self.current() is not None
        self.open_button.setEnabled(on)
        self.runs_button.setEnabled(on)
        what = "storage suite" if self.kind == "suite" else "campaign"
        where = "Storage suite" if self.kind == "suite" else "Campaigns"
        self.open_button.setToolTip(f"Show the {what} in the {where} tab")
        self.runs_button.setToolTip(f"List the {what}'s runs here (compare, export, open them)")
