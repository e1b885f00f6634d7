"""The run library view: every stored run with search and filters, editing, detail, import.

The table loads through the bridge (never SQLite on the GUI thread); ``refresh()`` is the slot
the run side calls when a run finishes. Dropping saved tool output files here (or on a window
given to ``accept_drops_on``) imports them with ``import_file``, the same path tests use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from PySide6.QtCore import (
    QDate,
    QEvent,
    QItemSelectionModel,
    QObject,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Run, RunStatus
from pairbench.domain.failures import FieldError
from pairbench.domain.host_text import parse_tags, split_tags_text, tags_text
from pairbench.engine.run_query import RunListing, RunQuery, find_runs
from pairbench.library.runs import delete_run, get_run, update_run_notes
from pairbench.services.import_guess import (
    ToolGuess,
    check_readable,
    guess_tool,
    read_output_file,
)
from pairbench.services.importing import ParseError, import_output
from pairbench.services.library import Library
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.form_rows import NOTE_STYLE, error_label
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.message_bar import MessageBar
from pairbench.ui.library.run_detail import RunDetailView
from pairbench.ui.library.runs_model import (
    LABEL,
    RUN_ROLE,
    SORT_ROLE,
    STARTED,
    RunsTableModel,
)

SEARCH_DELAY_MS = 250
ANY = "Any"


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """An import attempt: the stored run, or the guess when the user must pick the tool."""

    path: Path
    run: Run | None
    guess: ToolGuess | None = None


def dropped_files(event: QDropEvent | QDragEnterEvent) -> list[Path]:
    """The local files a drag carries (folders and remote URLs are left out)."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    return [path for path in paths if not path.is_dir()]


class RunsTable(QTableView):
    """The runs table; Enter opens the current run (double-click too)."""

    openRequested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and self.state() != QAbstractItemView.State.EditingState
        ):
            self.openRequested.emit()
            return
        super().keyPressEvent(event)


class _DropFilter(QObject):
    """Lets another widget (the main window) take file drops for the library view."""

    def __init__(self, view: LibraryView) -> None:
        super().__init__(view)
        self._view = view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if dropped_files(event):  # type: ignore[arg-type]
                event.acceptProposedAction()  # type: ignore[attr-defined]
                return True
        elif kind == QEvent.Type.Drop:
            return self._view.handle_drop(event)  # type: ignore[arg-type]
        return False


class LibraryView(QWidget):
    """Lists, filters, edits, opens, deletes and imports runs."""

    refreshed = Signal()  # the table was (re)loaded
    imported = Signal(object)  # Run
    importFailed = Signal(str)
    saved = Signal(object)  # Run, after its label, tags or notes were stored
    deleted = Signal(list)  # run ids
    compareRequested = Signal(list)  # run ids (two or more selected)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._generation = 0
        self._select_after_load: int | None = None
        self._loaded_once = False
        self.setAcceptDrops(True)
        self._drop_filter = _DropFilter(self)

        self.message = MessageBar()
        self._build_filters()
        self._build_table()
        self._build_editor()

        self.drop_hint = QLabel(
            f"Drop saved tool output files ({', '.join(sorted(TOOLS))}) here to import them. "
            "Double-click or Enter opens a run; F2 edits its label."
        )
        self.drop_hint.setStyleSheet(NOTE_STYLE)
        self.drop_hint.setWordWrap(True)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.editor)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        browser = QWidget()
        browser_layout = QVBoxLayout(browser)
        browser_layout.setContentsMargins(0, 0, 0, 0)
        browser_layout.addLayout(self.filters_row)
        browser_layout.addWidget(split, 1)
        browser_layout.addWidget(self.drop_hint)

        self.detail = RunDetailView(bridge)
        self.detail.closed.connect(self.show_list)
        self.stack = QStackedWidget()
        self.stack.addWidget(browser)
        self.stack.addWidget(self.detail)

        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self._update_editor()
        self.refresh()

    # -- construction ------------------------------------------------------------------------

    def _build_filters(self) -> None:
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search label, notes, tags, pair…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMinimumWidth(160)
        self.search_edit.textChanged.connect(self._search_later)
        self.pair_combo = QComboBox()
        self.tool_combo = QComboBox()
        self.status_combo = QComboBox()
        self.pair_combo.addItem("All pairs", None)
        self.tool_combo.addItem("All tools", None)
        self.status_combo.addItem("Any status", None)
        for status in RunStatus:
            self.status_combo.addItem(status.value, status.value)
        for combo in (self.pair_combo, self.tool_combo, self.status_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.currentIndexChanged.connect(self.refresh)
        self.tag_edit = QLineEdit()
        self.tag_edit.setPlaceholderText("tag or key=value")
        self.tag_edit.setClearButtonEnabled(True)
        self.tag_edit.setMaximumWidth(150)
        self.tag_edit.textChanged.connect(self._search_later)
        self.date_check = QCheckBox("From")
        self.from_date = QDateEdit(QDate.currentDate().addMonths(-1))
        self.to_date = QDateEdit(QDate.currentDate())
        for edit in (self.from_date, self.to_date):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
            edit.dateChanged.connect(self.refresh)
        self.date_check.toggled.connect(self._dates_toggled)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.count_label = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.search_edit, 2)
        row.addWidget(self.pair_combo)
        row.addWidget(self.tool_combo)
        row.addWidget(self.status_combo)
        row.addWidget(self.tag_edit, 1)
        row.addWidget(self.date_check)
        row.addWidget(self.from_date)
        row.addWidget(QLabel("to"))
        row.addWidget(self.to_date)
        row.addWidget(self.refresh_button)
        self.filters_row = QVBoxLayout()
        self.filters_row.addLayout(row)
        self.filters_row.addWidget(self.count_label)

    def _build_table(self) -> None:
        self.model = RunsTableModel()
        self.model.labelEdited.connect(self._save_label)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = RunsTable()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(STARTED, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda _index: self.open_selected())
        self.table.openRequested.connect(self.open_selected)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_editor())

    def _build_editor(self) -> None:
        """The selected run's label, tags and notes under the table, with its actions."""
        self.editor = QGroupBox("Selected run")
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
        self.save_button.clicked.connect(self.save_selected)
        self.open_button = QPushButton("Open")
        self.open_button.clicked.connect(self.open_selected)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.clicked.connect(self.delete_selected)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Compare the selected runs (select two or more)")
        self.compare_button.clicked.connect(self.compare_selected)
        grid = QGridLayout(self.editor)
        grid.addWidget(self.selected_label, 0, 0, 1, 4)
        grid.addWidget(QLabel("Label"), 1, 0)
        grid.addWidget(self.label_edit, 1, 1)
        grid.addWidget(QLabel("Tags"), 1, 2)
        grid.addWidget(self.tags_edit, 1, 3)
        grid.addWidget(self.tags_error, 2, 3)
        grid.addWidget(QLabel("Notes"), 3, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.notes_edit, 3, 1, 1, 3)
        buttons = QVBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.compare_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 1, 4, 3, 1)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 3)

    # -- loading -----------------------------------------------------------------------------

    def query(self) -> RunQuery:
        """The filters as set now."""
        since = until = None
        if self.date_check.isChecked():
            start = self.from_date.date().toPython()
            end = self.to_date.date().toPython()
            since = datetime(start.year, start.month, start.day).timestamp()
            until = (datetime(end.year, end.month, end.day) + timedelta(days=1)).timestamp()
        return RunQuery(
            pair=self.pair_combo.currentData(),
            tool=self.tool_combo.currentData(),
            status=RunStatus(status) if (status := self.status_combo.currentData()) else None,
            text=self.search_edit.text().strip() or None,
            tag=self.tag_edit.text().strip() or None,
            since=since,
            until=until,
        )

    def refresh(self) -> None:
        """Reload the table with the current filters (off the GUI thread)."""
        self._search_timer.stop()
        self._generation += 1
        generation = self._generation
        query = self.query()

        async def job(lib: Library) -> RunListing:
            return find_runs(lib, query)

        def done(listing: RunListing) -> None:
            if generation == self._generation:
                self._loaded(listing, query)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.message.show_message("error", f"Cannot list runs: {error_text(error)}")

        call_for(self, self.bridge, job, done, failed)

    def _search_later(self) -> None:
        self._search_timer.start()

    def _dates_toggled(self, on: bool) -> None:
        self.from_date.setEnabled(on)
        self.to_date.setEnabled(on)
        self.refresh()

    def _loaded(self, listing: RunListing, query: RunQuery) -> None:
        keep = self._select_after_load
        self._select_after_load = None
        selected = keep if keep is not None else self.current_run_id()
        self._set_choices(self.pair_combo, listing.pairs)
        self._set_choices(self.tool_combo, listing.tools)
        self.model.set_runs(listing.runs)
        if not self._loaded_once and listing.runs:  # size columns once, on real rows
            self.table.resizeColumnsToContents()
            self.table.setColumnWidth(LABEL, max(self.table.columnWidth(LABEL), 160))
            self._loaded_once = True
        self._update_count(listing, query)
        if selected is not None:
            self.select_run(selected)
        self._update_editor()
        self.refreshed.emit()

    def _set_choices(self, combo: QComboBox, names: Iterable[str]) -> None:
        current = combo.currentData()
        combo.blockSignals(True)
        try:
            while combo.count() > 1:
                combo.removeItem(1)
            for name in names:
                combo.addItem(name, name)
            index = combo.findData(current) if current is not None else 0
            if index < 0:  # keep a filter on a name that no longer has runs
                combo.addItem(current, current)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
        finally:
            combo.blockSignals(False)

    def _update_count(self, listing: RunListing, query: RunQuery) -> None:
        count = len(listing.runs)
        if count == 0 and query.is_empty():
            tools = ", ".join(sorted(TOOLS))
            self.count_label.setText(
                "No runs yet. Start one from the Run tab (or: pairbench run --pair local "
                f"--tool iperf3), or drop a saved {tools} output file here to import it."
            )
        elif query.is_empty():
            self.count_label.setText(f"{count} run{'s' if count != 1 else ''}")
        else:
            self.count_label.setText(
                f"{count} run{'s' if count != 1 else ''} match the filters"
                if count
                else "No run matches the filters."
            )

    # -- selection ---------------------------------------------------------------------------

    def selected_runs(self) -> list[Run]:
        """The selected runs, in table order."""
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.proxy.index(row, 0).data(RUN_ROLE) for row in rows]

    def current_run_id(self) -> int | None:
        runs = self.selected_runs()
        if runs:
            return runs[0].id
        index = self.table.currentIndex()
        return None if not index.isValid() else index.data(RUN_ROLE).id

    def select_run(self, run_id: int) -> bool:
        """Select (and scroll to) a run in the table; False if it is not shown."""
        row = self.model.row_of(run_id)
        if row is None:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)
        return True

    def _update_editor(self) -> None:
        runs = self.selected_runs()
        one = runs[0] if len(runs) == 1 else None
        for widget in (self.label_edit, self.tags_edit, self.notes_edit, self.save_button):
            widget.setEnabled(one is not None)
        self.open_button.setEnabled(one is not None)
        self.delete_button.setEnabled(bool(runs))
        self.tags_error.hide()
        if one is None:
            self.selected_label.setText(
                f"{len(runs)} runs selected." if runs else "No run selected."
            )
            self.label_edit.clear()
            self.tags_edit.clear()
            self.notes_edit.clear()
            return
        self.selected_label.setText(
            f"Run {one.id}: {one.spec.tool} on {one.spec.pair}, {one.status.value}"
        )
        self.label_edit.setText(one.label)
        self.tags_edit.setText(tags_text(one.tags))
        self.notes_edit.setPlainText(one.notes)

    # -- editing -----------------------------------------------------------------------------

    def _save_label(self, run_id: int, label: str) -> None:
        async def job(lib: Library) -> Run:
            update_run_notes(lib, run_id, label=label)
            return get_run(lib, run_id)

        self._store(job, f"Label of run {run_id} saved.")

    def save_selected(self) -> None:
        """Store the editor's label, tags and notes for the selected run."""
        runs = self.selected_runs()
        if len(runs) != 1:
            return
        run_id = runs[0].id
        label = self.label_edit.text().strip()
        tags_line = self.tags_edit.text()
        notes = self.notes_edit.toPlainText()
        self.tags_error.hide()

        async def job(lib: Library) -> Run:
            try:
                tags = parse_tags(split_tags_text(tags_line))
            except ValueError as exc:
                raise FieldError("tags", str(exc)) from None
            update_run_notes(lib, run_id, label=label, tags=tags, notes=notes)
            return get_run(lib, run_id)

        self._store(job, f"Run {run_id} saved.")

    def _store(self, job: object, message: str) -> None:
        def done(run: Run) -> None:
            self.model.update_run(run)
            self.message.show_message("ok", message)
            self._update_editor()
            self.saved.emit(run)

        def failed(error: BaseException) -> None:
            if isinstance(error, FieldError) and error.field == "tags":
                self.tags_error.setText(str(error))
                self.tags_error.show()
                return
            self.message.show_message("error", f"Not saved: {error_text(error)}")
            self.refresh()

        call_for(self, self.bridge, job, done, failed)  # type: ignore[arg-type]

    def edit_label(self, run_id: int, label: str) -> None:
        """Set a run's label as if typed in its table cell (the same path)."""
        row = self.model.row_of(run_id)
        if row is not None:
            self.model.setData(self.model.index(row, LABEL), label)

    def delete_selected(self) -> None:
        """Delete the selected runs after confirmation."""
        runs = self.selected_runs()
        if not runs:
            return
        if len(runs) == 1:
            run = runs[0]
            what = f"run {run.id} ({run.spec.tool} on {run.spec.pair}" + (
                f", {run.label})" if run.label else ")"
            )
        else:
            what = f"{len(runs)} runs ({', '.join(str(r.id) for r in runs[:8])}" + (
                "…)" if len(runs) > 8 else ")"
            )
        answer = QMessageBox.question(
            self,
            "Delete runs",
            f"Delete {what}? Its series and raw output are removed too. This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        ids = [run.id for run in runs]

        async def job(lib: Library) -> list[int]:
            for run_id in ids:
                delete_run(lib, run_id)
            return ids

        def done(gone: list[int]) -> None:
            self.message.show_message(
                "ok", f"Deleted run{'s' if len(gone) > 1 else ''} {', '.join(map(str, gone))}."
            )
            self.refresh()
            self.deleted.emit(gone)

        def failed(error: BaseException) -> None:
            self.message.show_message("error", f"Not deleted: {error_text(error)}")
            self.refresh()

        call_for(self, self.bridge, job, done, failed)

    # -- detail ------------------------------------------------------------------------------

    def compare_selected(self) -> None:
        """Ask for a comparison of the selected runs (the main window opens the view)."""
        ids = [run.id for run in self.selected_runs()]
        if len(ids) < 2:
            self.message.show_error("Select two or more runs to compare.")
            return
        self.compareRequested.emit(ids)

    def open_selected(self) -> None:
        """Show the current run's detail view."""
        run_id = self.current_run_id()
        if run_id is not None:
            self.open_run(run_id)

    def open_run(self, run_id: int) -> None:
        self.detail.show_run(run_id)
        self.stack.setCurrentWidget(self.detail)

    def show_list(self) -> None:
        self.stack.setCurrentIndex(0)
        self.table.setFocus()

    # -- importing ---------------------------------------------------------------------------

    def accept_drops_on(self, widget: QWidget) -> None:
        """Let ``widget`` (the main window) take file drops and import them here."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self._drop_filter)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.handle_drop(event)

    def handle_drop(self, event: QDropEvent) -> bool:
        """Import every local file a drop carries; True when there was one."""
        files = dropped_files(event)
        if not files:
            return False
        event.acceptProposedAction()
        for path in files:
            self.import_file(path)
        return True

    def import_file(self, path: Path | str, tool: str | None = None, pair: str = "local") -> None:
        """Import a saved tool output as a run (the drag-and-drop path).

        The tool is guessed from the file name and by trying each tool's parser when not
        given; when that is not conclusive the user picks it. ``imported`` or
        ``importFailed`` tells the outcome.
        """
        path = Path(path)
        self.message.show_message("info", f"Importing {path.name}…")

        async def job(lib: Library) -> ImportOutcome:
            text = read_output_file(path)
            guess = None
            chosen = tool
            if chosen is None:
                guess = guess_tool(text, path.name)
                chosen = guess.tool
                if chosen is None:
                    return ImportOutcome(path, None, guess)
            else:
                check_readable(text, chosen, path.name)
            try:
                run = import_output(lib, chosen, text, pair=pair, source_name=path.name)
            except ParseError as exc:
                raise ValueError(f"{path.name} is not {chosen} output: {exc}") from None
            return ImportOutcome(path, run, guess)

        def done(outcome: ImportOutcome) -> None:
            if outcome.run is None:
                chosen = self._ask_tool(path, outcome.guess or ToolGuess())
                if chosen is None:
                    self.message.show_message("info", f"Import of {path.name} cancelled.")
                    self.importFailed.emit("cancelled")
                else:
                    self.import_file(path, chosen, pair)
                return
            run = outcome.run
            extra = f" ({run.error})" if run.error else ""
            self.message.show_message(
                "ok" if run.status is RunStatus.COMPLETED else "info",
                f"Imported {path.name} as {run.spec.tool} run {run.id}: {run.status.value}{extra}.",
            )
            self._select_after_load = run.id
            self.refresh()
            self.imported.emit(run)

        def failed(error: BaseException) -> None:
            text = f"Cannot import {path.name}: {error_text(error)}"
            self.message.show_message("error", text)
            self.importFailed.emit(text)

        call_for(self, self.bridge, job, done, failed)

    def _ask_tool(self, path: Path, guess: ToolGuess) -> str | None:
        if guess.sure:
            why = f"it reads as the output of {' or '.join(guess.sure)}"
        elif guess.weak:
            why = f"it looks like an error message of {' or '.join(guess.weak)}"
        else:
            why = "no tool's parser recognised it"
        choices = guess.candidates
        name, ok = QInputDialog.getItem(
            self,
            "Which tool wrote this file?",
            f"Pairbench cannot tell which tool wrote {path.name} ({why}).\n"
            "Import it as the output of:",
            choices,
            0,
            False,
        )
        return name if ok and name in TOOLS else None
