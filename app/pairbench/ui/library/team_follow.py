"""A running team run's detail, shown live: a follower thread (``services.team_follow``) reads
each new copy of the run on a connection of its own and hands it to the GUI thread through a
queued signal; the detail redraws it, says "live: updated HH:MM:SS, N samples", and the
following ends at the final copy, when the detail is closed or another run is opened."""

from __future__ import annotations

import dataclasses

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

from pairbench.domain.timestamps import time_text
from pairbench.services.team_browser import Published
from pairbench.services.team_follow import LiveCopy, RunFollower
from pairbench.ui.library.run_detail import RunDetailView


def origin_note(published: Published, *, live: bool = False) -> str:
    """Where a team run comes from, under its detail's title (a live copy's publish time
    changes every second: not said)."""
    head = f"ran by {published.ran_by} on {published.origin}"
    if live:
        return f"{head} · read-only"
    when = time_text(published.published_at, "%Y-%m-%d %H:%M")
    return f"{head}, published {when} · read-only"


def live_line(copy: LiveCopy) -> str:
    """What the detail says of the copy it shows."""
    when = time_text(copy.read_at, "%H:%M:%S")
    if copy.running:
        return f"live: updated {when}, {copy.samples} samples"
    return f"final copy received {when}, {copy.samples} samples: no longer live"


class TeamFollow(QObject):
    """Follows the team run a ``RunDetailView`` shows while it runs (one at a time)."""

    copied = Signal(object, object)  # RunFollower, LiveCopy: from its thread, queued here
    errored = Signal(object, str)  # RunFollower, why the server could not be read
    updated = Signal(object)  # LiveCopy, once the detail shows it (GUI thread)
    finished = Signal(object)  # LiveCopy: the final copy is shown, following is over

    def __init__(self, detail: RunDetailView) -> None:
        super().__init__(detail)
        self.detail = detail
        self.follower: RunFollower | None = None
        self.counts: list[int] = []  # the samples of each copy shown (tests, benchmarks)
        self._generation = -1
        self._run_id = 0
        self.copied.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self.errored.connect(self._error, Qt.ConnectionType.QueuedConnection)
        detail.closed.connect(self.stop)

    @property
    def following(self) -> bool:
        """True while a follower is asked to follow (its thread may still be ending)."""
        found = self.follower
        return found is not None and not found.stopped and found.is_alive()

    def follow(self, url: str, uuid: str, run_id: int, *, team_note: str) -> None:
        """Open team run ``run_id`` (``uuid`` on the server ``url``) in the detail and follow
        it until its final copy arrives."""
        self.stop()
        self._generation = self.detail.begin(run_id, team_note=team_note)
        self._run_id = run_id
        self.counts = []

        def on_copy(copy: LiveCopy) -> None:
            if shiboken6.isValid(self):
                self.copied.emit(follower, copy)  # queued: shown on the GUI thread
            else:
                follower.stop()

        def on_error(text: str) -> None:
            if shiboken6.isValid(self):
                self.errored.emit(follower, text)
            else:
                follower.stop()

        follower = RunFollower(url, uuid, on_copy, on_error)
        self.detail.destroyed.connect(follower.stop)  # the window goes: so does the thread
        self.follower = follower.start()

    def stop(self) -> None:
        """Stop following (the thread ends by itself within a fraction of a second)."""
        if self.follower is not None:
            self.follower.stop()
            self.follower = None

    # -- on the GUI thread -------------------------------------------------------------------

    def _current(self, follower: RunFollower) -> bool:
        """True when ``follower`` is the one following the run the detail still shows."""
        if follower is not self.follower:
            return False  # a copy from before, on its way when that following stopped
        if self.detail.generation != self._generation:
            self.stop()  # another run was opened meanwhile
            return False
        return True

    def _show(self, follower: RunFollower, copy: LiveCopy) -> None:
        if not self._current(follower):
            return
        detail = copy.detail
        if copy.running:  # each live copy is a new row on the server: keep the id opened
            detail = dataclasses.replace(
                detail, run=dataclasses.replace(detail.run, id=self._run_id)
            )
        else:
            self.detail.team_note = origin_note(copy.published)
        self.detail.show_copy(detail, live_line(copy))
        self.counts.append(copy.samples)
        self.updated.emit(copy)
        if not copy.running:
            self.stop()
            self.finished.emit(copy)

    def _error(self, follower: RunFollower, text: str) -> None:
        if not self._current(follower):
            return
        if self.detail.detail is None:
            self.detail.show_error(text)
        else:
            self.detail.live_label.setText(f"live: {text}; trying again")
