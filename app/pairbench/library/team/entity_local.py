"""This library's side of publishing storage suites and campaigns to a team library: each
one's UUID, the outbox of those waiting, what was published (with the entity's ``updated_at``
then, so one changed since is published again) and the runs and suites each refers to."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pairbench.library.connection import Library, LibraryError, write_transaction
from pairbench.library.ownership import recover_orphaned_rows
from pairbench.library.team.local import refuse_unqueueable
from pairbench.library.uuids import uuid_of

Kind = Literal["suite", "campaign"]
KINDS: tuple[Kind, ...] = ("suite", "campaign")  # suites first: a campaign refers to its suites
_TABLE: dict[str, str] = {"suite": "suites", "campaign": "campaigns"}


@dataclass(frozen=True, slots=True)
class QueuedEntity:
    """A suite or campaign waiting to be published: tries so far and the last reason."""

    kind: Kind
    entity_id: int
    queued_at: float
    tries: int
    last_error: str


def _table(kind: str) -> str:
    try:
        return _TABLE[kind]
    except KeyError:
        raise LibraryError(f"{kind!r} is not a suite or a campaign") from None


def entity_uuid(lib: Library, kind: Kind, entity_id: int) -> str:
    """The entity's UUID (it has one from its creation: ``library.uuids``)."""
    return uuid_of(lib, _table(kind), entity_id, kind)


def recover_orphaned(lib: Library) -> None:
    """Suites and campaigns left ``running`` by a process that is gone become interrupted
    (and so may be published)."""
    for kind in KINDS:
        recover_orphaned_rows(lib.conn, _table(kind))


def status_of(lib: Library, kind: Kind, entity_id: int) -> tuple[str, float] | None:
    """The entity's status and ``updated_at``, or None when it does not exist."""
    row = lib.conn.execute(
        f"SELECT status, updated_at FROM {_table(kind)} WHERE id = ?", (entity_id,)
    ).fetchone()
    return None if row is None else (str(row[0]), float(row[1]))


def is_current(lib: Library, kind: Kind, entity_id: int) -> bool:
    """True when the entity is published as it stands (unchanged since)."""
    row = lib.conn.execute(
        f"SELECT 1 FROM team_entities p JOIN {_table(kind)} e ON e.id = p.entity_id "
        "WHERE p.kind = ? AND p.entity_id = ? AND p.updated_at = e.updated_at",
        (kind, entity_id),
    ).fetchone()
    return row is not None


def published_uuid(lib: Library, kind: Kind, entity_id: int) -> str | None:
    """The UUID the entity was published under (changed since or not), or None."""
    row = lib.conn.execute(
        "SELECT uuid FROM team_entities WHERE kind = ? AND entity_id = ?", (kind, entity_id)
    ).fetchone()
    return None if row is None else str(row[0])


def last_error(lib: Library, kind: Kind, entity_id: int) -> str:
    """Why the entity waits (empty when it does not, or was never tried)."""
    row = lib.conn.execute(
        "SELECT last_error FROM team_entity_outbox WHERE kind = ? AND entity_id = ?",
        (kind, entity_id),
    ).fetchone()
    return "" if row is None else str(row[0])


def queue_entities(lib: Library, kind: Kind, ids: Iterable[int]) -> list[int]:
    """Put these suites or campaigns in the outbox unless published as they stand; the ids
    queued now. ``LibraryError`` naming those that do not exist or still run."""
    wanted = list(dict.fromkeys(ids))
    found = {i: status_of(lib, kind, i) for i in wanted}
    refuse_unqueueable(kind, {i: None if s is None else s[0] for i, s in found.items()})
    queued = []
    now = time.time()
    with write_transaction(lib.conn):
        for entity_id in wanted:
            if is_current(lib, kind, entity_id):
                continue
            cur = lib.conn.execute(
                "INSERT OR IGNORE INTO team_entity_outbox (kind, entity_id, queued_at) "
                "VALUES (?, ?, ?)",
                (kind, entity_id, now),
            )
            if cur.rowcount:
                queued.append(entity_id)
    return queued


def _not_current(kind: Kind, *, published: bool) -> str:
    """SQL: the ids of the entities not running that are published but changed since
    (``published``), or not published at all."""
    table = _table(kind)
    if published:
        return (
            f"SELECT e.id FROM {table} e JOIN team_entities p ON p.kind = '{kind}' "
            "AND p.entity_id = e.id WHERE e.status != 'running' AND p.updated_at != e.updated_at"
        )
    return (
        f"SELECT e.id FROM {table} e WHERE e.status != 'running' AND NOT EXISTS "
        f"(SELECT 1 FROM team_entities p WHERE p.kind = '{kind}' AND p.entity_id = e.id)"
    )


def queue_changed(lib: Library) -> int:
    """Published entities that changed since (and no longer run) into the outbox; how many."""
    return _queue_query(lib, published=True)


def queue_unpublished_entities(lib: Library) -> int:
    """Every suite and campaign that has ended and was never published, into the outbox."""
    return _queue_query(lib, published=False)


def _queue_query(lib: Library, *, published: bool) -> int:
    count = 0
    now = time.time()
    with write_transaction(lib.conn):
        for kind in KINDS:
            cur = lib.conn.execute(
                "INSERT OR IGNORE INTO team_entity_outbox (kind, entity_id, queued_at) "
                f"SELECT ?, id, ? FROM ({_not_current(kind, published=published)})",
                (kind, now),
            )
            count += max(cur.rowcount, 0)
    return count


def entity_outbox(lib: Library) -> list[QueuedEntity]:
    """The entities waiting, suites before campaigns, oldest first."""
    rows = lib.conn.execute(
        "SELECT kind, entity_id, queued_at, tries, last_error FROM team_entity_outbox "
        "ORDER BY kind = 'campaign', queued_at, entity_id"
    ).fetchall()
    return [
        QueuedEntity("campaign" if k == "campaign" else "suite", int(i), float(q), int(t), str(e))
        for k, i, q, t, e in rows
    ]


def waiting_count(lib: Library, kind: Kind) -> int:
    """How many of this kind wait to be published (queued, or changed since published),
    leaving out those running again (they wait for their end)."""
    table = _table(kind)
    row = lib.conn.execute(
        f"SELECT COUNT(*) FROM {table} e WHERE e.status != 'running' AND (EXISTS (SELECT 1 "
        "FROM team_entity_outbox o WHERE o.kind = ? AND o.entity_id = e.id) OR e.id IN "
        f"({_not_current(kind, published=True)}))",
        (kind,),
    ).fetchone()
    return int(row[0])


def published_entities(lib: Library, kind: Kind) -> int:
    row = lib.conn.execute("SELECT COUNT(*) FROM team_entities WHERE kind = ?", (kind,)).fetchone()
    return int(row[0])


def entity_runs(lib: Library, kind: Kind, entity_id: int) -> list[int]:
    """The local runs an entity lists (a campaign's own; its suites' are theirs)."""
    sql = (
        "SELECT DISTINCT run_id FROM suite_jobs WHERE suite_id = ? AND run_id IS NOT NULL"
        if kind == "suite"
        else "SELECT DISTINCT run_id FROM campaign_runs WHERE campaign_id = ? "
        "AND run_id IS NOT NULL"
    )
    return sorted(int(r) for (r,) in lib.conn.execute(sql, (entity_id,)))


def campaign_suites(lib: Library, campaign_id: int) -> list[int]:
    """The suites a campaign's cells ran (published before the campaign)."""
    rows = lib.conn.execute(
        "SELECT DISTINCT suite_id FROM campaign_runs WHERE campaign_id = ? "
        "AND suite_id IS NOT NULL ORDER BY suite_id",
        (campaign_id,),
    )
    return [int(r) for (r,) in rows]


def runs_states(lib: Library, run_ids: Iterable[int]) -> dict[int, tuple[str, bool, str]]:
    """Each run's status, whether it is published, and its outbox's last error."""
    rows = lib.conn.execute(
        "SELECT r.id, r.status, p.run_id IS NOT NULL, coalesce(o.last_error, '') FROM runs r "
        "LEFT JOIN team_published p ON p.run_id = r.id LEFT JOIN team_outbox o "
        "ON o.run_id = r.id WHERE r.id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(run_ids)),),
    ).fetchall()
    return {int(i): (str(s), bool(p), str(e)) for i, s, p, e in rows}


def mark_entity_published(
    lib: Library, kind: Kind, entity_id: int, key: str, server: str, updated_at: float
) -> None:
    """The entity is on the team server as it stood at ``updated_at``: out of the outbox."""
    with write_transaction(lib.conn):
        lib.conn.execute(
            "INSERT INTO team_entities (kind, entity_id, uuid, server, updated_at, published_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, entity_id) DO UPDATE SET "
            "uuid = excluded.uuid, server = excluded.server, updated_at = excluded.updated_at, "
            "published_at = excluded.published_at",
            (kind, entity_id, key, server, updated_at, time.time()),
        )
        lib.conn.execute(
            "DELETE FROM team_entity_outbox WHERE kind = ? AND entity_id = ?", (kind, entity_id)
        )


def mark_entity_waiting(lib: Library, kind: Kind, entity_id: int, error: str) -> None:
    """It could not be published now: it stays in the outbox with the reason."""
    lib.conn.execute(
        "INSERT INTO team_entity_outbox (kind, entity_id, queued_at, tries, last_error) "
        "VALUES (?, ?, ?, 1, ?) ON CONFLICT (kind, entity_id) DO UPDATE SET "
        "tries = tries + 1, last_error = excluded.last_error",
        (kind, entity_id, time.time(), error[:500]),
    )


def forget_entities(lib: Library) -> None:
    """Another team server: no suite or campaign is published there yet (UUIDs stay)."""
    lib.conn.execute("DELETE FROM team_entities")
