"""The Library tab's team source: offers "Team" beside "This computer" when this library has a
team library, lists the team's runs read-only (with who ran each, a running run marked live),
and opens a team run with its series fetched from the server once per session, or follows it
live while it runs (its row is refreshed when its final copy comes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from pairbench.domain import Run, RunStatus
from pairbench.services.team_browser import TeamSeriesCache
from pairbench.services.team_follow import LiveCopy
from pairbench.ui.library.jobs import call_for
from pairbench.ui.library.live_status import LiveStatusDelegate
from pairbench.ui.library.runs_model import STATUS
from pairbench.ui.library.team_follow import TeamFollow, origin_note
from pairbench.ui.library.team_jobs import configured_team, team_detail_job

if TYPE_CHECKING:
    from pairbench.ui.library.library_view import LibraryView

UNREACHABLE_COUNT = "The team library could not be read: see the message above, then Refresh."


class TeamMode(QObject):
    """Switches a ``LibraryView`` between this computer's runs and the team library's."""

    def __init__(self, view: LibraryView) -> None:
        super().__init__(view)
        self.view = view
        self.cache = TeamSeriesCache()  # team runs' series, for this window's session
        self.url: str | None = None
        self.live = TeamFollow(view.detail)  # a running team run's detail, followed live
        self.live.finished.connect(self._final_copy)
        self._live_status = LiveStatusDelegate(view.table)
        view.filters.sourceChanged.connect(self._source_changed)
        view.filters.refreshClicked.connect(self.check)
        view.files.imported.connect(self._imported)
        view.runs.failed.connect(self._failed)
        self.check()

    @property
    def active(self) -> bool:
        """True while the list shows the team library's runs."""
        return self.view.runs.team

    def check(self) -> None:
        """Ask the library (on the engine thread) whether it has a team library; offer the
        "Team" source when it has."""
        call_for(self.view, self.view.bridge, configured_team, self._configured, lambda _e: None)

    def _configured(self, url: str | None) -> None:
        self.url = url
        self.view.filters.set_team_available(url)

    def _source_changed(self, team: bool) -> None:
        view = self.view
        view.message.hide()
        self.live.stop()
        view.runs.set_team(team)
        plain = view.table.itemDelegate()
        view.table.setItemDelegateForColumn(STATUS, self._live_status if team else plain)
        view.editor.read_only = team
        view.refresh()

    def _imported(self, _path: object, _run: Run) -> None:
        """An imported file is a run of this computer: show that list."""
        if self.active:
            self.view.filters.source_combo.setCurrentIndex(0)

    def _failed(self, _message: str) -> None:
        if self.active:
            self.view.count_label.setText(UNREACHABLE_COUNT)

    def open_run(self, run_id: int) -> bool:
        """Open the detail of team run ``run_id`` (its series from the server the first time,
        from memory after); False when the list shows this computer's runs."""
        if not self.active:
            return False
        model = self.view.model
        row = model.row_of(run_id)
        origin = model.origin_of(run_id)
        if row is None or origin is None:
            return True
        run = model.run_at(row)
        if run.status is RunStatus.RUNNING and self.url:
            # Still running: read afresh at each live copy (never from the cache).
            note = origin_note(origin, live=True)
            self.live.follow(self.url, origin.uuid, run_id, team_note=note)
        else:
            self.live.stop()
            job = team_detail_job(self.cache, run, origin.uuid)
            self.view.detail.load(run_id, job, team_note=origin_note(origin))
        self.view.stack.setCurrentWidget(self.view.detail)
        return True

    def _final_copy(self, copy: LiveCopy) -> None:
        """The run followed ended: its row in the Team list becomes the final copy (a new id
        on the server), still selected if it was."""
        model = self.view.model
        if not self.active:
            return
        runs = model.runs()
        rows = [i for i, run in enumerate(runs) if self._uuid_of(run.id) == copy.published.uuid]
        if not rows:
            return
        selected = self.view.runs.current_run_id() in {runs[row].id for row in rows}
        final = copy.detail.run
        model.add_origins({final.id: copy.published})
        for row in rows:
            runs[row] = final
        model.sync(runs, model.total)
        if selected:
            self.view.runs.select_run(final.id)

    def _uuid_of(self, run_id: int) -> str | None:
        origin = self.view.model.origin_of(run_id)
        return None if origin is None else origin.uuid
