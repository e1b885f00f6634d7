"""Who holds the team library's tables locked, for a message that says what a publish or a
listing waits on (another session's ``LOCK TABLE``, a migration, a ``VACUUM FULL``)."""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import psycopg

# The table lock modes that hold up a publish (INSERT) or a listing (SELECT).
_BLOCKING = ("ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock")


class LockHolder(NamedTuple):
    """Another session holding one of the team library's tables: which, how, who."""

    table: str
    mode: str
    pid: int
    role: str
    application: str
    since: float | None  # when its transaction began (None: the server does not say)

    @property
    def blocks_reading(self) -> bool:
        return self.mode == "AccessExclusiveLock"

    def describe(self) -> str:
        """``pid 4242, role bob, application psql, since 14:02:11`` (what the server shows)."""
        parts = [f"pid {self.pid}"]
        if self.role:
            parts.append(f"role {self.role}")
        if self.application:
            parts.append(f"application {self.application}")
        if self.since is not None:
            parts.append(f"since {time.strftime('%H:%M:%S', time.localtime(self.since))}")
        return ", ".join(parts)


def lock_holders(conn: psycopg.Connection[tuple[Any, ...]]) -> list[LockHolder]:
    """Other sessions holding a table of this schema in a mode that holds up a publish or a
    listing (pg_locks is readable by every role; who they are, as far as the role may see)."""
    rows = conn.execute(
        "SELECT c.relname::text, l.mode, l.pid, coalesce(a.usename::text, ''), "
        "coalesce(a.application_name, ''), extract(epoch FROM a.xact_start)::float8 "
        "FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'relation' AND l.granted AND l.pid <> pg_backend_pid() "
        "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace "
        "AND l.mode = ANY(%s) ORDER BY c.relname = 'runs' DESC, c.relname, l.pid",
        (list(_BLOCKING),),
    ).fetchall()
    return [LockHolder(str(t), str(m), int(p), str(r), str(a), s) for t, m, p, r, a, s in rows]


def locked_message(target: str, holders: list[LockHolder], waited_s: float | None = None) -> str:
    """What a call waits on (a lock wait that timed out after ``waited_s``, or locks seen),
    in one line (without the action's part)."""
    waited = "" if waited_s is None else f"; Pairbench waited {waited_s:g} s for it"
    if holders:
        first = holders[0]
        more = f" (and {len(holders) - 1} more lock(s))" if len(holders) > 1 else ""
        return (
            f"the team server {target} answered but its {first.table} table is locked by "
            f"another session ({first.describe()}, {first.mode}){more}{waited}"
        )
    return (
        f"the team server {target} answered but a row it needs is held by another session's "
        f"open transaction (an earlier publish of the same run cut off mid-way, which the "
        f"server ends within seconds, or another computer publishing it right now){waited}"
    )
