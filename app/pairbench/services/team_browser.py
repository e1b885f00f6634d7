"""Browsing the team library in the window: a page of the team's runs for a query (the local
browser's filters, order and paging, applied by the server) with who ran each, and a team
run's detail with its series fetched once and kept for the session.

The network half (``browse_team``, ``TeamSeriesCache.detail``) takes the server's address,
not the library, so the window runs it off the engine thread (the engine's loop never waits
on a server); ``team_url`` reads the address from the library on the engine thread.
psycopg is imported only when a server is first reached.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from pairbench.domain import Run
from pairbench.library import Library
from pairbench.library.run_filter import SortKey
from pairbench.library.run_store import TeamRunStore
from pairbench.library.team import local
from pairbench.services.run_browser import (
    PAGE_SIZE,
    RunDetail,
    RunPage,
    RunQuery,
    SeriesArrays,
    browse_store,
    raw_text,
)

BROWSE_TIMEOUT_S = 5.0  # a server out of reach is said within seconds
CACHE_BYTES = 256 * 1024 * 1024  # team runs' series kept in memory (the oldest go first)
NO_RAW_TEXT = "(no raw output on the team server yet)"


@dataclass(frozen=True, slots=True)
class Published:
    """Where a team run comes from: its UUID, who ran it, on which computer, and when it was
    published (epoch seconds)."""

    uuid: str
    ran_by: str
    origin: str
    published_at: float


@dataclass(frozen=True, slots=True)
class TeamPage(RunPage):
    """A ``RunPage`` of the team library; ``team`` maps each run's (server) id to where it
    comes from."""

    team: dict[int, Published] = field(default_factory=dict)


def team_url(lib: Library) -> str | None:
    """The team server's address this library is connected to (None: no team library)."""
    return local.get_setting(lib, local.URL) or None


def browse_team(
    url: str,
    query: RunQuery,
    *,
    sort: SortKey = "started",
    descending: bool = True,
    offset: int = 0,
    limit: int = PAGE_SIZE,
    choices: bool = True,
    timeout_s: float = BROWSE_TIMEOUT_S,
) -> TeamPage:
    """One page of the team's runs matching ``query`` in the given order, how many match,
    and (with ``choices``) the pairs and tools of the team's runs; ``TeamError`` when the
    server cannot be read."""
    from pairbench.services.team import open_store

    with open_store(url, timeout_s=timeout_s) as connected:
        connected.ensure_schema(create=False)
        store = TeamRunStore(connected)
        page = browse_store(
            store,
            query,
            sort=sort,
            descending=descending,
            offset=offset,
            limit=limit,
            choices=choices,
        )
        found = [store.published(run) for run in page.runs]  # as listed: no round trip
    team = {t.run.id: Published(t.uuid, t.ran_by, t.origin, t.published_at) for t in found}
    return TeamPage(page.runs, page.total, page.offset, page.pairs, page.tools, team=team)


def _size(series: list[SeriesArrays]) -> int:
    return sum(int(one.t.nbytes) + int(one.v.nbytes) for one in series)


class TeamSeriesCache:
    """Team runs' series fetched from the server, kept in memory (up to ``max_bytes``, the
    least recently opened dropped first): opening a team run again does not fetch it again.
    Safe to use from several threads."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._series: OrderedDict[tuple[str, str], list[SeriesArrays]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.fetches = 0  # how many times a run's series came from the server

    def cached(self, url: str, uuid: str) -> list[SeriesArrays] | None:
        """The run's series when they are here, else None."""
        with self._lock:
            found = self._series.get((url, uuid))
            if found is not None:
                self._series.move_to_end((url, uuid))
            return found

    def series(
        self, url: str, uuid: str, *, timeout_s: float = BROWSE_TIMEOUT_S
    ) -> list[SeriesArrays]:
        """The team run's series: from memory, or fetched from the server and kept."""
        found = self.cached(url, uuid)
        if found is not None:
            return found
        from pairbench.services.team import open_store

        with open_store(url, timeout_s=timeout_s) as store:
            store.ensure_schema(create=False)
            fetched = store.load_series(uuid)
        with self._lock:
            self.fetches += 1
            key = (url, uuid)
            if key not in self._series:
                self._series[key] = fetched
                self._bytes += _size(fetched)
            while self._bytes > self.max_bytes and len(self._series) > 1:
                _, dropped = self._series.popitem(last=False)
                self._bytes -= _size(dropped)
        return fetched

    def detail(self, url: str, run: Run, uuid: str) -> RunDetail:
        """What the detail view shows of a team run: the run as listed, its series (cached),
        its raw output and analyses (read from the server each time it is opened)."""
        from pairbench.library.team.extras import load_extras
        from pairbench.services.team import open_store

        series = self.series(url, uuid)
        with open_store(url, timeout_s=BROWSE_TIMEOUT_S) as store:
            raw, analyses = load_extras(store, uuid)
        text, truncated = raw_text(raw)
        return RunDetail(run, series, text, truncated, analyses)
