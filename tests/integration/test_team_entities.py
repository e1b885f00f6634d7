"""Storage suites and campaigns published to a real PostgreSQL team library, in process: after
their runs, stored once, replaced (not doubled) when changed locally, kept waiting with the
reason while a run of theirs cannot be published, read back whole with hostile text; and a
server at the previous schema version upgraded by the tables' owner only."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from team_entity_kit import finished_run, make_campaign, make_suite

from pairbench.library import Library
from pairbench.library.campaigns import (
    claim_campaign,
    finish_campaign,
    get_campaign,
    record_campaign_run,
)
from pairbench.library.suites import get_suite
from pairbench.library.team import entity_local, local
from pairbench.library.team import schema as team_schema
from pairbench.library.team.entity_list import list_team_campaigns, list_team_suites
from pairbench.library.team.store import TeamError, TeamStore
from pairbench.services import team
from teamkit import TeamServer

pytestmark = pytest.mark.usefixtures("team_passwords")


@pytest.fixture
def server_db(team_server: TeamServer) -> str:
    """A team library of the test's own (the server is shared by the session)."""
    name = f"e_{uuid.uuid4().hex[:10]}"
    team_server.create_database(name)
    return name


def _connected(tmp_path: Path, server: TeamServer, db: str, role: str) -> Library:
    lib = Library.open(tmp_path / f"{role}.sqlite")
    team.connect(lib, server.url(role, dbname=db), name=role)
    return lib


def _rows(server: TeamServer, db: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with server.admin(db) as conn:
        return list(conn.execute(sql, args).fetchall())


def _uuids(lib: Library, table: str, ids: list[int]) -> list[str]:
    marks = ", ".join("?" * len(ids))
    rows = lib.conn.execute(f"SELECT id, uuid FROM {table} WHERE id IN ({marks})", ids)
    found = dict(rows.fetchall())
    return [str(found[i]) for i in ids]


def test_a_suite_and_a_campaign_are_published_after_their_runs_and_stored_once(
    team_server: TeamServer, server_db: str, tmp_path: Path
) -> None:
    lib = _connected(tmp_path, team_server, server_db, "alice")
    suite_id, suite_runs = make_suite(lib, label="nvme a")
    cid, campaign_runs = make_campaign(lib, suite_id=suite_id)
    pushed = team.push(lib)
    assert pushed.error == ""
    assert sorted(pushed.pushed) == sorted(suite_runs + campaign_runs)
    assert (pushed.suites.pushed, pushed.campaigns.pushed) == ([suite_id], [cid])
    assert pushed.suites.pending == pushed.campaigns.pending == 0
    [suite_key] = _uuids(lib, "suites", [suite_id])
    [campaign_key] = _uuids(lib, "campaigns", [cid])
    jobs = _rows(
        team_server,
        server_db,
        "SELECT j.run_uuid::text FROM suite_jobs j JOIN suites s ON s.id = j.suite_id "
        "WHERE s.uuid = %s ORDER BY j.job",
        suite_key,
    )
    assert [r[0] for r in jobs] == _uuids(lib, "runs", suite_runs)
    cells = _rows(
        team_server,
        server_db,
        "SELECT r.cell, r.run_uuid::text, r.suite_uuid::text, r.value FROM campaign_runs r "
        "JOIN campaigns c ON c.id = r.campaign_id WHERE c.uuid = %s ORDER BY r.at",
        campaign_key,
    )
    local_rows = lib.conn.execute(
        "SELECT c.cell, r.uuid, s.uuid, c.value FROM campaign_runs c LEFT JOIN runs r "
        "ON r.id = c.run_id LEFT JOIN suites s ON s.id = c.suite_id WHERE c.campaign_id = ? "
        "ORDER BY c.at",
        (cid,),
    ).fetchall()
    assert cells == [tuple(r) for r in local_rows]
    assert any(r[2] == suite_key for r in cells)  # the suite a cell ran, by its UUID
    # Pushed again: nothing waits; asked for by id: found on the server as it stands.
    again = team.push(lib, entities=[("suite", suite_id), ("campaign", cid)])
    assert (again.pushed, again.suites.pushed, again.campaigns.pushed) == ([], [], [])
    assert (again.suites.skipped, again.campaigns.skipped) == ([suite_id], [cid])
    for table in ("suites", "suite_jobs", "campaigns", "campaign_runs", "campaign_passes"):
        count = _rows(team_server, server_db, f"SELECT count(*) FROM {table}")[0][0]
        expected = lib.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        assert count == expected, table
    lib.close()


def test_an_entity_changed_after_publishing_replaces_its_copy(
    team_server: TeamServer, server_db: str, tmp_path: Path
) -> None:
    lib = _connected(tmp_path, team_server, server_db, "alice")
    suite_id, _ = make_suite(lib, label="before")
    cid, runs = make_campaign(lib)
    assert team.push(lib).campaigns.pushed == [cid]
    # The campaign resumed: while it runs it waits; once it ends it is published again.
    claim_campaign(lib, cid)
    extra = finished_run(lib, value=9.5)
    record_campaign_run(lib, cid, (1, 0, 2, 1), extra, "completed", 9.5, 200.0)
    assert team.status(lib).campaigns_waiting == 0  # running: not yet
    midway = team.push(lib)
    assert midway.campaigns.pushed == [] and midway.pushed == [extra]
    finish_campaign(lib, cid, "completed")
    # The suite relabelled (its updated_at moves on).
    lib.conn.execute(
        "UPDATE suites SET label = 'after', updated_at = updated_at + 1 WHERE id = ?", (suite_id,)
    )
    st = team.local_status(lib)
    assert (st.suites_waiting, st.campaigns_waiting) == (1, 1)
    replaced = team.push(lib)
    assert (replaced.suites.pushed, replaced.campaigns.pushed) == ([suite_id], [cid])
    [campaign_key] = _uuids(lib, "campaigns", [cid])
    counted = _rows(
        team_server,
        server_db,
        "SELECT count(*), (SELECT count(*) FROM campaign_runs r WHERE r.campaign_id = "
        "max(c.id)) FROM campaigns c WHERE c.uuid = %s",
        campaign_key,
    )
    listed = lib.conn.execute(
        "SELECT count(*) FROM campaign_runs WHERE campaign_id = ?", (cid,)
    ).fetchone()[0]
    assert listed == len(runs) + 1
    assert counted == [(1, listed)]  # one copy; its rows replaced, with the new run
    with TeamStore.connect(team_server.url("alice", dbname=server_db)) as store:
        [suite] = list_team_suites(store)
        assert suite.suite.label == "after"
        jobs = _rows(team_server, server_db, "SELECT count(*) FROM suite_jobs")[0][0]
        assert jobs == lib.conn.execute("SELECT count(*) FROM suite_jobs").fetchone()[0]
    lib.close()


def test_a_suite_whose_run_fails_to_publish_waits_with_the_reason(
    team_server: TeamServer, server_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = _connected(tmp_path, team_server, server_db, "alice")
    suite_id, runs = make_suite(lib)
    bad = runs[-1]
    real_publish = TeamStore.publish

    def failing(self: TeamStore, lib_: Library, run_id: int, *args: Any, **kw: Any) -> bool:
        if run_id == bad:
            raise TeamError(f"cannot publish run {run_id}: refused for the test")
        return real_publish(self, lib_, run_id, *args, **kw)

    monkeypatch.setattr(TeamStore, "publish", failing)
    result = team.push(lib)
    assert "refused for the test" in result.error
    assert result.pushed == runs[:-1] and result.pending == 1
    assert result.suites.pushed == [] and result.suites.pending == 1
    why = entity_local.last_error(lib, "suite", suite_id)
    assert f"run {bad}" in why and "refused for the test" in why
    assert _rows(team_server, server_db, "SELECT count(*) FROM suites") == [(0,)]
    assert team.status(lib).suites_waiting == 1
    monkeypatch.setattr(TeamStore, "publish", real_publish)
    later = team.push(lib)
    assert later.error == "" and later.pushed == [bad] and later.suites.pushed == [suite_id]
    assert _rows(team_server, server_db, "SELECT count(*) FROM suites") == [(1,)]
    lib.close()


HOSTILE = 'x\'); DROP TABLE suites; -- "q" \\ \x1b[31mred\n% ☃ \u202eevil'


def test_hostile_labels_and_names_round_trip(
    team_server: TeamServer, server_db: str, tmp_path: Path
) -> None:
    lib = _connected(tmp_path, team_server, server_db, "alice")
    suite_id, _ = make_suite(lib, label=HOSTILE)
    cid, _ = make_campaign(lib, name=HOSTILE + " name", label=HOSTILE)
    assert team.push(lib).error == ""
    with TeamStore.connect(team_server.url("bob", dbname=server_db)) as store:
        [suite] = list_team_suites(store)
        [campaign] = list_team_campaigns(store)
    with TeamStore.connect(team_server.url("reader", dbname=server_db)) as store:
        assert list_team_suites(store) == [suite]  # a read-only member reads them too
        assert list_team_campaigns(store) == [campaign]
    assert suite.suite.label == HOSTILE and suite.published.ran_by == "alice"
    mine = get_suite(lib, suite_id)
    assert dataclasses.replace(suite.suite, id=mine.id) == mine  # every field as stored
    assert (campaign.campaign.name, campaign.campaign.label) == (HOSTILE + " name", HOSTILE)
    ours = get_campaign(lib, cid)
    assert dataclasses.replace(campaign.campaign, id=ours.id) == ours
    assert campaign.published.uuid == _uuids(lib, "campaigns", [cid])[0]
    assert _rows(team_server, server_db, "SELECT count(*) FROM suites") == [(1,)]
    lib.close()


def test_a_server_at_the_previous_version_is_upgraded_by_its_owner_only(
    team_server: TeamServer, server_db: str, tmp_path: Path
) -> None:
    previous = team_schema.SCHEMA_VERSION - 1
    with psycopg.connect(team_server.url("alice", dbname=server_db), autocommit=True) as conn:
        assert team_schema.migrate(conn, previous) == previous
    with TeamStore.connect(team_server.url("alice", dbname=server_db)) as alice:
        assert alice.schema_version() == previous
    bob = Library.open(tmp_path / "bob.sqlite")
    local.set_setting(bob, local.URL, team_server.url("bob", dbname=server_db))
    local.set_setting(bob, local.NAME, "bob")
    local.set_setting(bob, local.AUTO, "on")
    suite_id, runs = make_suite(bob)
    # bob may publish runs, but not upgrade alice's tables: the suite waits, saying so.
    first = team.push(bob)
    assert first.pushed == runs and first.suites.pending == 1
    assert "alice" in first.error and "upgrade" in first.error
    assert "alice" in entity_local.last_error(bob, "suite", suite_id)
    alice = _connected(tmp_path, team_server, server_db, "alice")  # the owner upgrades
    with TeamStore.connect(team_server.url("alice", dbname=server_db)) as store:
        assert store.schema_version() == team_schema.SCHEMA_VERSION
        assert {r.uuid for r in store.list_runs()} == set(_uuids(bob, "runs", runs))
    then = team.push(bob)
    assert then.error == "" and then.suites.pushed == [suite_id]
    alice.close()
    bob.close()
