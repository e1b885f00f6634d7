"""Runs watched live through the team library: the publisher that sends the runs this
process records to the team server as they go (a copy every second while new samples came,
each replacing the last), and the watcher that follows them from another computer."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pairbench.library import Library
from pairbench.library.team import local

if TYPE_CHECKING:
    from pairbench.library.team.store import TeamStore

LIVE_INTERVAL_S = 1.0  # how often a running run's new samples are published
OUTBOX_EVERY_S = 10.0  # how often the finished runs waiting in the outbox are published
RETRY_S = 5.0  # after the server could not be reached


@dataclass(frozen=True, slots=True)
class LiveTarget:
    """Where this library publishes live, and as whom (None: it does not)."""

    url: str
    ran_by: str


def live_target(lib: Library) -> LiveTarget | None:
    """The team server this library publishes to automatically, or None (read from SQLite
    alone: deciding costs no PostgreSQL driver)."""
    url = local.get_setting(lib, local.URL)
    if not url or local.get_setting(lib, local.AUTO) != "on":
        return None
    return LiveTarget(url, local.get_setting(lib, local.NAME) or url)


class LivePublisher:
    """A thread that publishes the runs this process records while they run, and the outbox
    every ``outbox_every_s`` (a campaign's or the window's finished runs go as they end).
    Errors never reach the run: an unreachable server is tried again later."""

    def __init__(
        self,
        library: Path,
        target: LiveTarget,
        *,
        interval_s: float = LIVE_INTERVAL_S,
        outbox_every_s: float = OUTBOX_EVERY_S,
    ) -> None:
        self.library = library
        self.target = target
        self.interval_s = interval_s
        self.outbox_every_s = outbox_every_s
        self.published = 0  # live copies sent (for tests and benchmarks)
        self.last_error = ""
        self._stop = threading.Event()
        self._store: TeamStore | None = None  # the connection in use, to cut on stop
        self._thread = threading.Thread(target=self._loop, name="pairbench-live", daemon=True)

    def start(self) -> LivePublisher:
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 1.0) -> None:
        """Stop publishing without waiting on the server: a live copy in flight is cut off
        (the finished run's own publish replaces the last copy anyway)."""
        self._stop.set()
        store = self._store
        if store is not None:
            store.abort()
        self._thread.join(timeout_s)

    def _loop(self) -> None:
        import time

        from pairbench.services.team import TeamError, open_store, push
        from pairbench.services.team_outbox import publishing_due

        sent: dict[int, float] = {}  # run → the updated_at of its last live copy
        origin = socket.gethostname()
        outbox_at = time.monotonic() + self.outbox_every_s
        with Library.open(self.library, recover=False, check=False) as lib:
            while not self._stop.is_set():
                try:
                    with open_store(self.target.url) as store:
                        self._store = store
                        if self._stop.is_set():
                            break
                        while not self._stop.wait(self.interval_s):
                            if time.monotonic() >= outbox_at and publishing_due(lib):
                                # Its own connection; what fails stays queued.
                                push(lib, wait_for_locks=False)
                                outbox_at = time.monotonic() + self.outbox_every_s
                            for run_id, updated in local.running_here(lib):
                                if sent.get(run_id) == updated:
                                    continue  # nothing new since the last copy
                                uuid = local.run_uuid(lib, run_id)
                                store.publish(
                                    lib,
                                    run_id,
                                    uuid,
                                    ran_by=self.target.ran_by,
                                    origin=origin,
                                    live=True,
                                )
                                sent[run_id] = updated
                                self.published += 1
                except TeamError as exc:
                    self.last_error = str(exc)
                    self._stop.wait(RETRY_S)
                finally:
                    self._store = None


@dataclass(frozen=True, slots=True)
class LiveUpdate:
    """A watched run as it stands now: the run, who runs it, and its latest values."""

    uuid: str
    ran_by: str
    status: str
    pair: str
    tool: str
    samples: int
    latest: dict[str, float]
    last_t: float | None


def watch(
    lib: Library,
    on_update: Callable[[LiveUpdate], bool],
    *,
    run_uuid: str | None = None,
    timeout_s: float = 600.0,
) -> None:
    """Follow the team's live runs (or one, by UUID) until ``on_update`` returns False or
    ``timeout_s`` passes: each publish of a run gives one update (its newest values)."""
    import time

    from pairbench.library.team.watch import LiveListener, team_run
    from pairbench.services.team import configured_url, open_store

    deadline = time.monotonic() + timeout_s
    with open_store(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        listener = LiveListener(store)
        while (left := deadline - time.monotonic()) > 0:
            for uuid in listener.wait(min(left, 1.0)):
                if run_uuid is not None and uuid != run_uuid:
                    continue
                found = team_run(store, uuid)
                if found is None:
                    continue
                series = store.load_series(uuid)
                latest = {f"{s.stream}/{s.metric}": float(s.v[-1]) for s in series if len(s.v)}
                last_t = max((float(s.t[-1]) for s in series if len(s.t)), default=None)
                update = LiveUpdate(
                    uuid,
                    found.ran_by,
                    found.run.status.value,
                    found.run.spec.pair,
                    found.run.spec.tool,
                    sum(len(s.v) for s in series),
                    latest,
                    last_t,
                )
                if not on_update(update):
                    return
