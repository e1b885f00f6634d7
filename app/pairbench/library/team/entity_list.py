"""The team library's storage suites and campaigns, read back: lists (newest first) and one
of each by UUID with its rows, as the local library's stored types plus who published them."""

from __future__ import annotations

from typing import Any, NamedTuple

from pairbench.library.campaigns import _COLUMNS as _CAMPAIGN_COLUMNS
from pairbench.library.campaigns import StoredCampaign, _campaign
from pairbench.library.suites import _SUITE_COLUMNS, StoredJob, StoredSuite, _object, _suite
from pairbench.library.team.store import TeamError, TeamStore, _uuid

_PUBLISHED = "uuid::text, ran_by, origin, published_at"


class Published(NamedTuple):
    """Who published an entity of the team library, from which computer, when."""

    uuid: str
    ran_by: str
    origin: str
    published_at: float


class TeamSuite(NamedTuple):
    """A suite of the team library (``suite.id``: the server's id)."""

    suite: StoredSuite
    published: Published


class TeamCampaign(NamedTuple):
    """A campaign of the team library, with what its list shows of its rows."""

    campaign: StoredCampaign
    published: Published
    completed_runs: int
    skipped_cells: int
    passes_ended: int


class TeamCampaignRun(NamedTuple):
    """One run (or suite) a team campaign started, named by UUID."""

    cell: int
    occurrence: int
    round: int
    attempt: int
    run_uuid: str | None
    suite_uuid: str | None
    status: str
    value: float | None
    at: float
    error: str


class TeamCampaignDetail(NamedTuple):
    """A team campaign with its runs, skipped cells and ended passes."""

    campaign: TeamCampaign
    runs: list[TeamCampaignRun]
    skipped: dict[int, str]
    passes: dict[int, str]


def _published(row: tuple[Any, ...]) -> Published:
    return Published(str(row[0]), str(row[1]), str(row[2]), float(row[3]))


_SUITES = f"SELECT {_SUITE_COLUMNS}, {_PUBLISHED} FROM suites"
_CAMPAIGNS = (
    f"SELECT {_CAMPAIGN_COLUMNS}, {_PUBLISHED}, "
    "(SELECT count(*) FROM campaign_runs r WHERE r.campaign_id = c.id "
    "AND r.status = 'completed'), "
    "(SELECT count(*) FROM campaign_skips s WHERE s.campaign_id = c.id), "
    "(SELECT count(*) FROM campaign_passes p WHERE p.campaign_id = c.id) FROM campaigns c"
)
_NEWEST = " ORDER BY created_at DESC, id DESC"


def list_team_suites(store: TeamStore) -> list[TeamSuite]:
    """The team's suites, newest first."""
    with store._errors("list suites"):
        rows = store._conn.execute((_SUITES + _NEWEST).encode()).fetchall()
    return [TeamSuite(_suite(r[:-4]), _published(r[-4:])) for r in rows]


def list_team_campaigns(store: TeamStore) -> list[TeamCampaign]:
    """The team's campaigns, newest first."""
    with store._errors("list campaigns"):
        rows = store._conn.execute((_CAMPAIGNS + _NEWEST).encode()).fetchall()
    return [_team_campaign(r) for r in rows]


def _team_campaign(r: tuple[Any, ...]) -> TeamCampaign:
    return TeamCampaign(_campaign(r[:-7]), _published(r[-7:-3]), *(int(n) for n in r[-3:]))


def team_suite(store: TeamStore, uuid: str) -> tuple[TeamSuite, list[tuple[StoredJob, str | None]]]:
    """A team suite and its jobs in order, each with its run's UUID (the job's ``run_id`` is
    None: runs are named by UUID); ``TeamError`` when there is none."""
    key = _uuid(uuid)
    with store._errors("read a suite"), store._conn.transaction():
        row = store._conn.execute((_SUITES + " WHERE uuid = %s::uuid").encode(), (key,)).fetchone()
        if row is None:
            raise TeamError(f"the team library has no suite {uuid}")
        jobs = store._conn.execute(
            "SELECT stage, round, job, run_uuid::text, status, figures FROM suite_jobs "
            "WHERE suite_id = %s ORDER BY stage, round, job",
            (int(row[0]),),
        ).fetchall()
    shown = TeamSuite(_suite(row[:-4]), _published(row[-4:]))
    return shown, [
        (
            StoredJob(
                int(stage),
                int(rnd),
                int(job),
                None,
                str(status),
                {str(k): float(v) for k, v in _object(figures).items()},
            ),
            None if run is None else str(run),
        )
        for stage, rnd, job, run, status, figures in jobs
    ]


def team_campaign(store: TeamStore, uuid: str) -> TeamCampaignDetail:
    """A team campaign with its rows; ``TeamError`` when there is none."""
    key = _uuid(uuid)
    with store._errors("read a campaign"), store._conn.transaction():
        conn = store._conn
        row = conn.execute((_CAMPAIGNS + " WHERE uuid = %s::uuid").encode(), (key,)).fetchone()
        if row is None:
            raise TeamError(f"the team library has no campaign {uuid}")
        team_id = int(row[0])
        runs = conn.execute(
            "SELECT cell, pass, round, attempt, run_uuid::text, suite_uuid::text, status, "
            "value, at, error FROM campaign_runs WHERE campaign_id = %s ORDER BY at, id",
            (team_id,),
        ).fetchall()
        skips = conn.execute(
            "SELECT cell, reason FROM campaign_skips WHERE campaign_id = %s ORDER BY cell",
            (team_id,),
        ).fetchall()
        passes = conn.execute(
            "SELECT pass, status FROM campaign_passes WHERE campaign_id = %s ORDER BY pass",
            (team_id,),
        ).fetchall()
    return TeamCampaignDetail(
        _team_campaign(row),
        [TeamCampaignRun(*r) for r in runs],
        {int(c): str(why) for c, why in skips},
        {int(p): str(s) for p, s in passes},
    )
