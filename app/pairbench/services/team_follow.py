"""Following one team run live for a view: a thread that LISTENs on a connection of its own
and hands each new copy of the run (the run and its series, read again, never cached) to a
callback, until the final copy arrives or it is stopped."""

from __future__ import annotations

import threading
import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pairbench.domain import RunStatus
from pairbench.services.run_browser import RunDetail, SeriesArrays
from pairbench.services.team_browser import BROWSE_TIMEOUT_S, NO_RAW_TEXT, Published

if TYPE_CHECKING:
    from pairbench.library.team.store import TeamStore

POLL_S = 0.25  # how often the follower looks whether it was stopped while it listens
RETRY_S = 3.0  # after the server could not be reached


@dataclass(frozen=True, slots=True)
class LiveCopy:
    """One copy of a followed team run: its detail (no raw output), where it comes from, its
    number of samples and when it was read (epoch seconds)."""

    detail: RunDetail
    published: Published
    samples: int
    read_at: float

    @property
    def running(self) -> bool:
        """True while this copy is a live one (more will come)."""
        return self.detail.run.status is RunStatus.RUNNING


def sample_count(series: list[SeriesArrays]) -> int:
    """The number of sample instants of a run: its longest series' length."""
    return max((len(one.t) for one in series), default=0)


def read_copy(store: TeamStore, uuid: str) -> LiveCopy | None:
    """The run with this UUID as the server holds it now, series included (None: no such
    run)."""
    from pairbench.library.team.watch import team_run

    found = team_run(store, uuid)
    if found is None:
        return None
    from pairbench.library.team.extras import load_extras
    from pairbench.services.run_browser import raw_text

    series = store.load_series(uuid)
    published = Published(found.uuid, found.ran_by, found.origin, found.published_at)
    raw, analyses = load_extras(store, uuid)
    text, truncated = raw_text(raw)
    detail = RunDetail(found.run, series, text or NO_RAW_TEXT, truncated, analyses)
    return LiveCopy(detail, published, sample_count(series), time.time())


class RunFollower:
    """A thread following one team run: ``on_copy`` gets its current copy at once, then each
    new copy as its publisher replaces it (LISTEN/NOTIFY, no polling of the data), the last
    one being the final copy (status no longer running); ``on_error`` gets why the server
    could not be read (tried again after ``retry_s``). Both are called on the thread."""

    def __init__(
        self,
        url: str,
        uuid: str,
        on_copy: Callable[[LiveCopy], None],
        on_error: Callable[[str], None],
        *,
        poll_s: float = POLL_S,
        retry_s: float = RETRY_S,
        timeout_s: float = BROWSE_TIMEOUT_S,
    ) -> None:
        self.url = url
        self.uuid = uuid
        self.on_copy = on_copy
        self.on_error = on_error
        self.poll_s = poll_s
        self.retry_s = retry_s
        self.timeout_s = timeout_s
        self.copies = 0  # copies handed over so far
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="pairbench-follow", daemon=True)

    def start(self) -> RunFollower:
        self.thread.start()
        return self

    def stop(self) -> None:
        """Ask the thread to end (within ``poll_s``, or once a read under way is done); does
        not wait for it."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout_s: float | None = None) -> None:
        self.thread.join(timeout_s)

    def _loop(self) -> None:
        from pairbench.services.team import TeamError

        while not self._stop.is_set():
            try:
                if self._follow():
                    return
            except TeamError as exc:
                if self._stop.is_set():
                    return
                self.on_error(str(exc))
                self._stop.wait(self.retry_s)

    def _follow(self) -> bool:
        """Listen, read the run, then read it again at each notification of its UUID; True
        when following is over (the final copy handed over, no such run, or stopped)."""
        from pairbench.library.team.watch import LiveListener
        from pairbench.services.team import open_store

        key = str(uuidlib.UUID(self.uuid))  # as the notifications spell it
        with open_store(self.url, timeout_s=self.timeout_s) as store:
            store.ensure_schema(create=False)
            listener = LiveListener(store)  # before the first read: no copy falls between
            if self._hand(store, key):
                return True
            while not self._stop.is_set():
                if key in listener.wait(self.poll_s) and self._hand(store, key):
                    return True
        return True

    def _hand(self, store: TeamStore, key: str) -> bool:
        """Read the run and hand it over; True when it is the last copy to hand."""
        if self._stop.is_set():
            return True
        copy = read_copy(store, key)
        if self._stop.is_set():
            return True
        if copy is None:
            self.on_error(f"the team library has no run {self.uuid} (any more)")
            return True
        self.copies += 1
        self.on_copy(copy)
        return not copy.running
