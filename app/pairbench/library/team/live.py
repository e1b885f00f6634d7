"""Runs watched live through the team library, the server's side: a running run's copy is
replaced by each live publish (one transaction), and the run's UUID is sent on the channel
``pairbench_live`` when that transaction commits (PostgreSQL's NOTIFY)."""

from __future__ import annotations

from typing import Any

import psycopg

CHANNEL = "pairbench_live"


def replace_live_copy(conn: psycopg.Connection[tuple[Any, ...]], key: str) -> bool:
    """Inside a publish's transaction: delete the live copy of this run (its status still
    ``running``), so the new copy replaces it; True when there was one. A finished copy is
    never deleted: a late live publish then stores nothing."""
    found = conn.execute(
        "DELETE FROM runs WHERE uuid = %s::uuid AND status = 'running' RETURNING id", (key,)
    ).fetchone()
    return found is not None


def notify_live(conn: psycopg.Connection[tuple[Any, ...]], key: str) -> None:
    """Tell the watchers this run changed (delivered when the transaction commits)."""
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, key))
