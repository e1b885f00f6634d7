"""Publishing a local storage suite or campaign to the team library: its row upserted by
UUID and its rows (jobs; cell runs, skips, passes) replaced, in one transaction; the runs and
suites it refers to are named by their UUIDs (published before it)."""

from __future__ import annotations

import time
from typing import Any

import psycopg

from pairbench.library.connection import Library
from pairbench.library.team.entity_local import Kind
from pairbench.library.team.publish import local_snapshot
from pairbench.library.team.store import TeamError, TeamStore, _uuid

_Conn = psycopg.Connection[tuple[Any, ...]]

# The local columns a published entity copies (the owner columns stay on the machine).
SUITE_COLUMNS = (
    "kind, host, params, status, created_at, updated_at, ended_at, label, facts, verdicts, "
    "tags, error"
)
CAMPAIGN_COLUMNS = (
    "name, plan, plan_text, cells, seed, status, paused, created_at, updated_at, ended_at, "
    "label, error"
)
_CHILDREN: dict[str, tuple[tuple[str, str, str], ...]] = {
    # (server table, server columns, the local query giving them in order)
    "suite": (
        (
            "suite_jobs",
            "stage, round, job, run_uuid, status, figures",
            "SELECT j.stage, j.round, j.job, r.uuid, j.status, j.figures FROM suite_jobs j "
            "LEFT JOIN runs r ON r.id = j.run_id WHERE j.suite_id = ? "
            "ORDER BY j.stage, j.round, j.job",
        ),
    ),
    "campaign": (
        (
            "campaign_runs",
            "cell, pass, round, attempt, run_uuid, suite_uuid, status, value, at, error",
            "SELECT c.cell, c.pass, c.round, c.attempt, r.uuid, s.uuid, c.status, c.value, "
            "c.at, c.error FROM campaign_runs c LEFT JOIN runs r ON r.id = c.run_id "
            "LEFT JOIN suites s ON s.id = c.suite_id WHERE c.campaign_id = ? ORDER BY c.id",
        ),
        (
            "campaign_skips",
            "cell, reason, at",
            "SELECT cell, reason, at FROM campaign_skips WHERE campaign_id = ? ORDER BY cell",
        ),
        (
            "campaign_passes",
            "pass, status, at",
            "SELECT pass, status, at FROM campaign_passes WHERE campaign_id = ? ORDER BY pass",
        ),
    ),
}
_PARENT = {"suite": ("suites", "suite_id"), "campaign": ("campaigns", "campaign_id")}


def publish_entity(
    store: TeamStore,
    lib: Library,
    kind: Kind,
    entity_id: int,
    uuid: str,
    *,
    ran_by: str,
    origin: str,
) -> tuple[bool, float]:
    """Publish local suite or campaign ``entity_id`` under ``uuid`` in one transaction.

    Its copy on the server is replaced when this one changed since (a later ``updated_at``
    or another status), its rows replaced with it. Returns whether the server stored it (False:
    it held this copy already) and the ``updated_at`` published. ``TeamError`` when the
    entity still runs. The caller publishes its runs (and a campaign's suites) first: a run
    without a UUID is named as none.
    """
    key = _uuid(uuid)
    table, parent = _PARENT[kind]
    columns = SUITE_COLUMNS if kind == "suite" else CAMPAIGN_COLUMNS
    names = [c.strip() for c in columns.split(",")]
    with local_snapshot(lib.conn):
        row = lib.conn.execute(
            f"SELECT {columns} FROM {table} WHERE id = ?", (entity_id,)
        ).fetchone()
        if row is None:
            raise TeamError(f"there is no {kind} {entity_id} in library {lib.path} to publish")
        updated_at = float(row[names.index("updated_at")])
        if row[names.index("status")] == "running":
            raise TeamError(f"{kind} {entity_id} is still running; it is published when it ends")
        children = [
            (server_table, names, lib.conn.execute(query, (entity_id,)).fetchall())
            for server_table, names, query in _CHILDREN[kind]
        ]
    updates = ", ".join(f"{c} = excluded.{c}" for c in ("ran_by", "origin", "published_at", *names))
    placeholders = ", ".join(["%s"] * (len(row) + 4))
    with store._errors(f"publish {kind} {entity_id}"), store._conn.transaction():
        conn = store._conn
        found = conn.execute(
            f"INSERT INTO {table} (uuid, ran_by, origin, published_at, {columns}) "
            f"VALUES ({placeholders}) ON CONFLICT (uuid) DO UPDATE SET {updates} "
            f"WHERE {table}.updated_at IS DISTINCT FROM excluded.updated_at "
            f"OR {table}.status IS DISTINCT FROM excluded.status RETURNING id".encode(),
            (key, ran_by, origin, time.time(), *row),
        ).fetchone()
        if found is None:
            return False, updated_at
        team_id = int(found[0])
        for server_table, names_, rows in children:
            conn.execute(f"DELETE FROM {server_table} WHERE {parent} = %s".encode(), (team_id,))
            if rows:
                marks = ", ".join(["%s"] * (len(rows[0]) + 1))
                conn.cursor().executemany(
                    f"INSERT INTO {server_table} ({parent}, {names_}) VALUES ({marks})".encode(),
                    [(team_id, *r) for r in rows],
                )
    return True, updated_at
