"""The Library tab's engine jobs on the team library: is one configured, a page of its runs, a
team run's detail. The server's address is read on the engine thread; the network waits run
in a worker thread, so neither the window nor the engine's loop (a live run) waits on it."""

from __future__ import annotations

import asyncio

from pairbench.domain import Run
from pairbench.services.library import Library
from pairbench.services.run_browser import RunDetail, RunPage, RunQuery
from pairbench.services.runs import SortKey
from pairbench.services.team_browser import TeamSeriesCache, browse_team, team_url
from pairbench.ui.bridge import EngineJob


async def configured_team(lib: Library) -> str | None:
    """The engine job saying whether this library has a team library (its address)."""
    return team_url(lib)


def _url(lib: Library) -> str:
    from pairbench.services.team import configured_url  # TeamSetupError when there is none

    return configured_url(lib)


def team_page_job(
    query: RunQuery,
    *,
    sort: SortKey,
    descending: bool,
    offset: int,
    limit: int,
    choices: bool,
) -> EngineJob[RunPage]:
    """A page of the team's runs (a ``TeamPage``), as ``browse_runs`` gives this computer's."""

    async def job(lib: Library) -> RunPage:
        url = _url(lib)
        return await asyncio.to_thread(
            browse_team,
            url,
            query,
            sort=sort,
            descending=descending,
            offset=offset,
            limit=limit,
            choices=choices,
        )

    return job


def team_detail_job(cache: TeamSeriesCache, run: Run, uuid: str) -> EngineJob[RunDetail]:
    """A team run's detail, its series from ``cache`` (fetched from the server the first
    time only)."""

    async def job(lib: Library) -> RunDetail:
        url = _url(lib)
        if cache.cached(url, uuid) is not None:
            return cache.detail(url, run, uuid)
        return await asyncio.to_thread(cache.detail, url, run, uuid)

    return job
