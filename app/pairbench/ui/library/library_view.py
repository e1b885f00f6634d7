"""The run library view: every stored run with search and filters, editing, detail, import.

Composes the filter bar, the run list (loaded page by page through the bridge: never SQLite
on the GUI thread), the selected run's editor, the detail view and the file import.
``refresh()`` is the slot the run side calls when a run finishes: it re-reads the loaded
rows and changes only those that differ. Dropping saved tool output files here (or on a
window given to ``accept_drops_on``) imports them with ``import_file``, the path tests use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QStackedWidget, QVBoxLayout, QWidget

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain import Run, RunStatus
from pairbench.domain.failures import FieldError
from pairbench.services.library import Library
from pairbench.services.run_browser import RunPage
from pairbench.services.studies import Study
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.burst_box import has_step, step_headline
from pairbench.ui.library.compare_pins import ComparePins
from pairbench.ui.library.file_import import (
    DropFilter,
    FileImport,
    batch_message,
    imported_text,
)
from pairbench.ui.library.filter_bar import FilterBar
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.library_layout import drop_hint, list_page, runs_split
from pairbench.ui.library.message_bar import MessageBar
from pairbench.ui.library.run_delete import delete_asking
from pairbench.ui.library.run_detail import RunDetailView
from pairbench.ui.library.run_editor import RunEditor
from pairbench.ui.library.run_edits import bulk_job, edit_job, label_job
from pairbench.ui.library.runs_list import RunsList
from pairbench.ui.library.runs_model import LABEL
from pairbench.ui.library.studies_list import StudiesList
from pairbench.ui.library.team_compare import team_refs
from pairbench.ui.library.team_mode import TeamMode


class LibraryView(QWidget):
    """Lists, filters, edits, opens, deletes and imports runs."""

    refreshed = Signal()  # the table was (re)loaded
    imported = Signal(object)  # Run
    importFailed = Signal(str)
    saved = Signal(object)  # Run, after its label, tags or notes were stored
    deleted = Signal(list)  # run ids
    compareRequested = Signal(list)  # RunRefs: run ids, TeamRefs (two or more)
    runAgainRequested = Signal(object)  # RunSpec: the detail's "Run again…"
    studyOpenRequested = Signal(object)  # Study: show a suite or campaign as the study it is

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._select_after_load: int | None = None
        self.setAcceptDrops(True)

        self.message = MessageBar()
        self.filters = FilterBar()
        self.runs = RunsList(bridge, self)
        self.editor = RunEditor()
        self.files = FileImport(bridge, self)
        self._drop_filter = DropFilter(self.files)
        # The parts' widgets, as the window and tests name them.
        self.model = self.runs.model
        self.table = self.runs.table
        self.search_edit, self.tag_edit = self.filters.search_edit, self.filters.tag_edit
        self.pair_combo, self.tool_combo = self.filters.pair_combo, self.filters.tool_combo
        self.status_combo, self.date_check = self.filters.status_combo, self.filters.date_check
        self.from_date, self.to_date = self.filters.from_date, self.filters.to_date
        self.refresh_button = self.filters.refresh_button
        self.open_button = self.editor.open_button
        self.count_label = self.filters.count_label
        self.label_edit, self.tags_edit = self.editor.label_edit, self.editor.tags_edit
        self.notes_edit, self.tags_error = self.editor.notes_edit, self.editor.tags_error
        self.save_button, self.delete_button = self.editor.save_button, self.editor.delete_button
        self.compare_button = self.editor.compare_button
        self.pins = ComparePins(self)  # runs pinned for a comparison, of either source
        self.tray = self.pins.tray

        self.drop_hint = drop_hint()
        # Runs, or (Show ▸ Storage suites / Campaigns) one row per study.
        self.studies = StudiesList(bridge)
        self.list_stack = QStackedWidget()
        self.list_stack.addWidget(runs_split(self.table, self.editor))
        self.list_stack.addWidget(self.studies)
        browser = list_page(
            self.filters, self.tray, self.list_stack, self.drop_hint, stretch=self.list_stack
        )
        self.detail = RunDetailView(bridge)
        self.detail.closed.connect(self.show_list)
        self.detail.run_again.connect(self.runAgainRequested)
        self.detail.burstAnalysed.connect(self._burst_analysed)
        self.stack = QStackedWidget()
        self.stack.addWidget(browser)
        self.stack.addWidget(self.detail)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)

        self.filters.changed.connect(self.refresh)
        self.filters.refreshClicked.connect(self.refresh)
        self.filters.showChanged.connect(lambda _mode: self.refresh())
        self.studies.loaded.connect(self.filters.show_studies)
        self.studies.failed.connect(lambda text: self.message.show_message("error", text))
        self.studies.openRequested.connect(self.studyOpenRequested)
        self.studies.runsRequested.connect(self.list_study_runs)
        self.runs.loaded.connect(self._loaded)
        self.runs.failed.connect(lambda text: self.message.show_message("error", text))
        self.model.labelEdited.connect(self._save_label)
        self.table.doubleClicked.connect(lambda _index: self.open_selected())
        self.table.openRequested.connect(self.open_selected)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_editor())
        self.editor.save_button.clicked.connect(self.save_selected)
        self.editor.open_button.clicked.connect(self.open_selected)
        self.editor.delete_button.clicked.connect(self.delete_selected)
        self.editor.compare_button.clicked.connect(self.compare_selected)
        self.files.started.connect(
            lambda path: self.message.show_message("info", f"Importing {path.name}…")
        )
        self.files.imported.connect(self._imported)
        self.files.failed.connect(self._import_failed)
        self.files.batchDone.connect(self._batch_imported)
        self.team = TeamMode(self)  # the "Team" source, when this library has a team library
        self._update_editor()
        self.refresh()

    # -- loading -----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the runs the filters select (off the GUI thread): a changed filter reloads the
        first page, the same filter re-reads the loaded rows and updates what changed."""
        self.filters.settle()
        if self.filters.studies_shown():
            self.list_stack.setCurrentWidget(self.studies)
            self.studies.load("suite" if self.filters.mode() == "suite" else "campaign")
            return
        self.list_stack.setCurrentIndex(0)
        self.runs.show_query(self.filters.query())

    def list_study_runs(self, study: Study) -> None:
        """List the runs of one storage suite or campaign (Show ▸ Every run, narrowed)."""
        self.filters.set_study(study.kind, study.id, study.name)

    def _loaded(self, page: RunPage) -> None:
        keep = self._select_after_load
        self._select_after_load = None
        selected = keep if keep is not None else self.runs.current_run_id()
        self.filters.set_choices(page.pairs, page.tools)
        self.filters.show_count(
            page.total, self.filters.query(), team=self.runs.team, studies=page.studies
        )
        if selected is not None and selected not in self.runs.selected_ids():
            self.runs.select_run(selected)
        self._update_editor()
        self.refreshed.emit()

    # -- selection ---------------------------------------------------------------------------

    def selected_runs(self) -> list[Run]:
        """The selected runs, in table order."""
        return self.runs.selected_runs()

    def current_run_id(self) -> int | None:
        return self.runs.current_run_id()

    def select_run(self, run_id: int) -> bool:
        """Select (and scroll to) a run in the table; False if it is not shown."""
        return self.runs.select_run(run_id)

    def _update_editor(self) -> None:
        self.editor.show_selection(self.selected_runs())

    # -- editing -----------------------------------------------------------------------------

    def _save_label(self, run_id: int, label: str) -> None:
        self._store(label_job(run_id, label), f"Label of run {run_id} saved.")

    def save_selected(self) -> None:
        """Store the editor's label, tags and notes for the selected run."""
        runs = self.selected_runs()
        if self.runs.team:
            return  # team runs are read-only
        if len(runs) > 1:
            self._save_many([run.id for run in runs])
            return
        if len(runs) != 1:
            return
        run_id = runs[0].id
        label = self.label_edit.text().strip()
        tags_line = self.tags_edit.text()
        notes = self.notes_edit.toPlainText()
        self.tags_error.hide()
        self._store(edit_job(run_id, label, tags_line, notes), f"Run {run_id} saved.")

    def _save_many(self, ids: list[int]) -> None:
        """The bulk edit: a label for all (if given) and tags set or dropped on all."""
        label = self.label_edit.text().strip() or None
        tags_line = self.tags_edit.text()
        self.tags_error.hide()
        self._store(bulk_job(ids, label, tags_line), f"{len(ids)} runs saved.")

    def _store(self, job: Callable[[Library], Awaitable[Run | list[Run]]], message: str) -> None:
        """Run an edit on the engine thread; show the runs it returns, or why it failed (a
        bad tag under the tags field)."""

        def done(result: Run | list[Run]) -> None:
            runs = result if isinstance(result, list) else [result]
            for run in runs:
                self.model.update_run(run)
            self.message.show_message("ok", message)
            self._update_editor()
            for run in runs:
                self.saved.emit(run)

        def failed(error: BaseException) -> None:
            if isinstance(error, FieldError) and error.field == "tags":
                self.editor.show_tags_error(str(error))
                return
            self.message.show_message("error", f"Not saved: {error_text(error)}")
            self.refresh()

        call_for(self, self.bridge, job, done, failed)

    def edit_label(self, run_id: int, label: str) -> None:
        """Set a run's label as if typed in its table cell (the same path)."""
        row = self.model.row_of(run_id)
        if row is not None:
            self.model.setData(self.model.index(row, LABEL), label)

    def delete_selected(self) -> None:
        """Delete the selected runs after confirmation."""
        runs = self.selected_runs()
        if not runs or self.runs.team:
            return
        delete_asking(self, runs)

    # -- detail ------------------------------------------------------------------------------

    def compare_selected(self) -> None:
        """Ask for a comparison of the selected runs (the main window opens the view); with
        runs pinned in the tray, of those and the selection."""
        if self.pins.active:
            self.pins.compare()
            return
        runs = self.selected_runs()
        if len(runs) < 2:
            self.message.show_message("error", "Select two or more runs to compare.")
            return
        self.compareRequested.emit(
            team_refs(self.model, runs) if self.runs.team else [r.id for r in runs]
        )

    def open_selected(self) -> None:
        """Show the current run's detail view."""
        run_id = self.current_run_id()
        if run_id is not None and not self.team.open_run(run_id):
            self.open_run(run_id)

    def open_run(self, run_id: int, *, analyse_burst: bool = False) -> None:
        self.detail.show_run(run_id, analyse_burst=analyse_burst)
        self.stack.setCurrentWidget(self.detail)

    def can_analyse_burst(self) -> bool:
        """True when one run of this computer with a throughput is selected."""
        runs = self.selected_runs()
        return len(runs) == 1 and not self.runs.team and "throughput_bps" in runs[0].summary

    def analyse_burst_selected(self) -> None:
        """Open the selected run and analyse its burst credits there (the list's menu)."""
        if self.can_analyse_burst():
            self.open_run(self.selected_runs()[0].id, analyse_burst=True)

    def _burst_analysed(self, run_id: int, estimate: BurstEstimate) -> None:
        """A run's burst analysis was stored: say what it found; the list shows it."""
        found = (
            f"step at {estimate.step_t:.1f} s, {step_headline(estimate)}"
            if has_step(estimate) and estimate.step_t is not None
            else "no step found"
        )
        self.message.show_message("ok", f"Run {run_id}: burst credits analysed ({found}), stored.")
        self.refresh()

    def show_list(self) -> None:
        self.stack.setCurrentIndex(0)
        self.table.setFocus()

    # -- importing ---------------------------------------------------------------------------

    def accept_drops_on(self, widget: QWidget) -> None:
        """Let ``widget`` (the main window) take file drops and import them here."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self._drop_filter)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self.files.accept(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        self.files.accept(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.files.drop(event)

    def handle_drop(self, event: QDropEvent) -> bool:
        """Import every local file a drop carries; True when there was one."""
        return self.files.drop(event)

    def import_file(
        self, path: Path | str, tool: str | None = None, pair: str | None = None
    ) -> None:
        """Import a saved tool output as a run (the drag-and-drop path).

        The tool is guessed from the file name and by trying each tool's parser when not
        given; when that is not conclusive the user picks it. ``imported`` or
        ``importFailed`` tells the outcome.
        """
        self.files.import_file(path, tool, pair)

    def _imported(self, path: Path, run: Run) -> None:
        if not self.files.in_batch(path):  # one of several: said once for them all
            self.message.show_message(
                "ok" if run.status is RunStatus.COMPLETED else "info", imported_text(path, run)
            )
        self._select_after_load = run.id
        self.refresh()
        self.imported.emit(run)

    def _import_failed(self, path: Path, message: str) -> None:
        if not self.files.in_batch(path):
            if message == "cancelled":
                self.message.show_message("info", f"Import of {path.name} cancelled.")
            else:
                self.message.show_message("error", message)
        self.importFailed.emit(message)

    def _batch_imported(self, outcomes: list[tuple[Path, Run | str]]) -> None:
        """Every file of one import said in one banner: each file's run, or why not."""
        self.message.show_message(*batch_message(outcomes))
