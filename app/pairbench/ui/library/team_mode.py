"""The Library tab's team source: offers "Team" beside "This computer" when this library has a
team library, lists the team's runs read-only (with who ran each), and opens a team run with
its series fetched from the server once per session."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from pairbench.domain import Run
from pairbench.services.team_browser import TeamSeriesCache
from pairbench.ui.library.jobs import call_for
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
        view.runs.set_team(team)
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
        published = datetime.fromtimestamp(origin.published_at).strftime("%Y-%m-%d %H:%M")
        note = f"ran by {origin.ran_by} on {origin.origin}, published {published} · read-only"
        job = team_detail_job(self.cache, model.run_at(row), origin.uuid)
        self.view.detail.load(run_id, job, team_note=note)
        self.view.stack.setCurrentWidget(self.view.detail)
        return True
