"""The Library tab's run list: a table over the library's runs (or the team library's), loaded
page by page through the bridge, sorted by the library, refreshed row by row."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from pairbench.domain import Run
from pairbench.services.library import Library
from pairbench.services.run_browser import PAGE_SIZE, RunPage, RunQuery, browse_runs
from pairbench.services.team_browser import TeamPage
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.runs_model import (
    LABEL,
    PAIR,
    RAN_BY,
    RESULT,
    STARTED,
    TAGS,
    RunsTableModel,
)
from pairbench.ui.library.team_jobs import team_page_job

# Columns wider than their contents' first page would crowd the label out: capped (the
# cell's tooltip and the run's detail have the whole text).
WIDTH_CAPS = {PAIR: 160, RESULT: 260, TAGS: 180, RAN_BY: 120}
SECTION_PADDING = 4  # px either side of a cell's text, as resizing to contents leaves


def _header_width(table: QTableView, column: int) -> int:
    header = table.horizontalHeader()
    return header.sectionSizeFromContents(column).width()


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


class RunsList(QObject):
    """Loads the runs of a query into its table (never SQLite on the GUI thread).

    ``show_query(query)`` loads the first page (a new filter or order resets the table); the
    same query and order again re-read the loaded rows and apply only what changed. Scrolling
    to the end loads the next page. ``loaded(page)`` after each (re)load, ``failed(message)``
    when the library could not be read.
    """

    loaded = Signal(object)  # RunPage
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._generation = 0  # of the newest load asked for
        # The first-page load last asked for (source, query, order) and the newest shown: a
        # first page of the same view is shown even when a newer load is on its way, so
        # refreshes faster than a load (a slow team server) never leave the list stale.
        self._view: tuple[bool, RunQuery, str, bool] | None = None
        self._applied = 0
        # A first page on its way (its view and generation): the same asked again meanwhile
        # is read once more after it (``_again``), not once per refresh.
        self._loading: tuple[tuple[bool, RunQuery, str, bool], int] | None = None
        self._again = False
        self._query: RunQuery | None = None  # what the table shows
        self.team = False  # the team library's runs (read-only) instead of this computer's
        self._shown: tuple[RunQuery, str, bool] | None = None
        self._sized = False
        self.model = RunsTableModel()
        self.model.moreWanted.connect(self._load_more)
        self.model.sortWanted.connect(lambda *_: self._reload())
        self.table = RunsTable(parent)
        self.table.setModel(self.model)
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
        rows = self.table.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no height to measure per row
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # The label takes the room left (elided); the others are as wide as their contents,
        # Tags at most TAGS_WIDTH: the Result never cut for them, nothing scrolls sideways.
        header.setStretchLastSection(False)
        header.setSectionResizeMode(LABEL, QHeaderView.ResizeMode.Stretch)

    def show_query(self, query: RunQuery) -> None:
        """Show the runs of ``query``: a fresh first page, or the loaded rows read again."""
        self._query = query
        order = (query, self.model.sort_key, self.model.descending)
        if order == self._shown:
            self._load(offset=0, limit=max(PAGE_SIZE, self.model.rowCount()), sync=True)
        else:
            self._load(offset=0, limit=PAGE_SIZE, sync=False)

    def set_team(self, team: bool) -> None:
        """List the team library's runs (with "Ran by", after Pair) or this computer's; the
        next ``show_query`` loads the first page."""
        if team == self.team:
            return
        self.team = team
        self._generation += 1  # a page of the other source on its way is not shown
        self._view = None
        self._again = False
        self._shown = None
        self._sized = False
        self.model.set_team(team)
        if team:
            header = self.table.horizontalHeader()
            header.moveSection(header.visualIndex(RAN_BY), header.visualIndex(PAIR) + 1)

    def _reload(self) -> None:
        if self._query is not None:
            self._load(offset=0, limit=PAGE_SIZE, sync=False)

    def _load(self, *, offset: int, limit: int, sync: bool) -> None:
        assert self._query is not None
        query, key, descending = self._query, self.model.sort_key, self.model.descending
        view = (self.team, query, key, descending)
        if not offset and self._loading is not None and self._loading[0] == view:
            self._again = True  # read again once the page on its way is shown
            return
        self._generation += 1
        generation = self._generation
        if not offset:
            self._view = view
            self._loading = (view, generation)

        async def local(lib: Library) -> RunPage:
            return browse_runs(
                lib,
                query,
                sort=key,
                descending=descending,
                offset=offset,
                limit=limit,
                choices=offset == 0,
            )

        job: EngineJob[RunPage] = local
        if self.team:
            job = team_page_job(
                query,
                sort=key,
                descending=descending,
                offset=offset,
                limit=limit,
                choices=not offset,
            )

        def done(page: RunPage) -> None:
            if generation != self._generation and (
                offset or view != self._view or generation < self._applied
            ):
                return  # a newer load is on its way, of another view or page
            self._applied = generation
            if isinstance(page, TeamPage):
                self.model.add_origins(page.team)
            self.model.add_bursts(page.bursts, [run.id for run in page.runs])
            if offset:
                self.model.append_page(offset, page.runs, page.total)
                return
            touched: list[int] = []
            if sync:
                touched = self.model.sync(page.runs, page.total)
            else:
                self.model.set_runs(page.runs, page.total)
            self._shown = (query, key, descending)
            if not sync and page.runs:  # a new list: its columns as wide as its rows want
                self._size_columns(grow_only=self._sized)
                self._sized = True
            elif touched:  # rows read again: a new or changed one's headline may be wider
                self._grow_result(touched)
            self.loaded.emit(page)

        def failed(error: BaseException) -> None:
            if generation != self._generation:
                return
            if self.team:  # no rows of this computer under "Team", nor stale team rows
                self.model.set_runs([], 0)
                self._shown = None
                self.failed.emit(f"Cannot list the team library's runs: {error_text(error)}")
            else:
                self.failed.emit(f"Cannot list runs: {error_text(error)}")

        def settled() -> None:
            if self._loading is None or self._loading[1] != generation:
                return
            self._loading = None
            if self._again and self._query is not None:
                self._again = False
                self.show_query(self._query)

        def shown(page: RunPage) -> None:
            done(page)
            settled()

        def not_shown(error: BaseException) -> None:
            failed(error)
            settled()

        call_for(self.table, self.bridge, job, shown, not_shown)

    def _size_columns(self, *, grow_only: bool, columns: tuple[int, ...] = ()) -> None:
        """Each column (of ``columns``, else all) as wide as its contents (the loaded rows'),
        within its cap; with ``grow_only`` never narrower than it is (the user's widths
        stay)."""
        table = self.table
        for column in columns or range(self.model.columnCount()):
            if column == LABEL:
                continue
            cap = WIDTH_CAPS.get(column, 220)
            wanted = min(max(table.sizeHintForColumn(column), _header_width(table, column)), cap)
            table.setColumnWidth(
                column, max(wanted, table.columnWidth(column)) if grow_only else wanted
            )

    def _grow_result(self, run_ids: list[int]) -> None:
        """Widen the Result column (within its cap) for these rows' headlines."""
        rows = [row for run_id in run_ids if (row := self.model.row_of(run_id)) is not None]
        hints = [self.table.sizeHintForIndex(self.model.index(row, RESULT)).width() for row in rows]
        wanted = min(max(hints, default=0) + 2 * SECTION_PADDING, WIDTH_CAPS[RESULT])
        if wanted > self.table.columnWidth(RESULT):
            self.table.setColumnWidth(RESULT, wanted)

    def _load_more(self, offset: int) -> None:
        if self._query is not None:
            self._load(offset=offset, limit=PAGE_SIZE, sync=False)

    # -- selection ---------------------------------------------------------------------------

    def selected_runs(self) -> list[Run]:
        """The selected runs, in table order."""
        selection = self.table.selectionModel()
        rows = sorted(index.row() for index in selection.selectedRows())
        return [self.model.run_at(row) for row in rows]

    def selected_ids(self) -> set[int]:
        """The ids of the selected runs."""
        return {run.id for run in self.selected_runs()}

    def current_run_id(self) -> int | None:
        runs = self.selected_runs()
        if runs:
            return runs[0].id
        index = self.table.currentIndex()
        return self.model.run_at(index.row()).id if index.isValid() else None

    def select_run(self, run_id: int) -> bool:
        """Select (and scroll to) a run in the table; False if it is not loaded."""
        row = self.model.row_of(run_id)
        if row is None:
            return False
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)
        return True
