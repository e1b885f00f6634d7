"""This library's side of a team library: its settings (the server's address without a
password, who publishes, automatic publishing), each run's UUID, the outbox of finished runs
waiting to be published, and the runs published."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pairbench.library.connection import Library, LibraryError, write_transaction
from pairbench.library.uuids import uuid_of

URL = "team.url"
NAME = "team.name"
AUTO = "team.auto"  # "on": the triggers queue every run that finishes or is imported


@dataclass(frozen=True, slots=True)
class Queued:
    """A run waiting in the outbox: when it was queued, tries so far and the last error."""

    run_id: int
    queued_at: float
    tries: int
    last_error: str


def get_setting(lib: Library, key: str) -> str | None:
    row = lib.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_setting(lib: Library, key: str, value: str | None) -> None:
    """Store a setting (None removes it)."""
    if value is None:
        lib.conn.execute("DELETE FROM settings WHERE key = ?", (key,))
    else:
        lib.conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def run_uuid(lib: Library, run_id: int) -> str:
    """The run's UUID (it has one from its creation: ``library.uuids``)."""
    return uuid_of(lib, "runs", run_id, "run")


def refuse_unqueueable(what: str, statuses: Mapping[int, str | None]) -> None:
    """``LibraryError`` naming the ``what``s (runs, suites, campaigns; status by id, None: no
    such one) that do not exist or still run: they cannot be queued for publishing."""
    missing = [i for i, s in statuses.items() if s is None]
    if missing:
        raise LibraryError(f"no {what} with id {', '.join(map(str, missing))}")
    running = [i for i, s in statuses.items() if s == "running"]
    if running:
        raise LibraryError(
            f"{what} {', '.join(map(str, running))} is still running: it is published once it ends"
        )


def queue_runs(lib: Library, run_ids: Iterable[int]) -> list[int]:
    """Put finished runs in the outbox (runs already published or queued are left as they
    are); the ids queued now. ``LibraryError`` naming runs that do not exist or still run."""
    ids = list(dict.fromkeys(run_ids))
    rows = lib.conn.execute(
        "SELECT id, status FROM runs WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    ).fetchall()
    found = {int(i): str(s) for i, s in rows}
    refuse_unqueueable("run", {i: found.get(i) for i in ids})
    queued = []
    now = time.time()
    with write_transaction(lib.conn):
        for run_id in ids:
            cur = lib.conn.execute(
                "INSERT OR IGNORE INTO team_outbox (run_id, queued_at) SELECT ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM team_published WHERE run_id = ?)",
                (run_id, now, run_id),
            )
            if cur.rowcount:
                queued.append(run_id)
    return queued


def queue_unpublished(lib: Library) -> list[int]:
    """Every finished run not yet published, into the outbox; the ids queued now."""
    ids = [
        int(i)
        for (i,) in lib.conn.execute(
            "SELECT id FROM runs WHERE status != 'running' AND id NOT IN "
            "(SELECT run_id FROM team_published) ORDER BY id"
        )
    ]
    return queue_runs(lib, ids) if ids else []


def outbox(lib: Library) -> list[Queued]:
    """The runs waiting to be published, oldest first."""
    rows = lib.conn.execute(
        "SELECT run_id, queued_at, tries, last_error FROM team_outbox ORDER BY queued_at, run_id"
    ).fetchall()
    return [Queued(int(r), float(q), int(t), str(e)) for r, q, t, e in rows]


def mark_published(lib: Library, run_id: int, run_uuid_: str, server: str) -> None:
    """The run is on the team server: out of the outbox, listed as published."""
    with write_transaction(lib.conn):
        lib.conn.execute(
            "INSERT INTO team_published (run_id, uuid, server, published_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id) DO UPDATE SET server = excluded.server",
            (run_id, run_uuid_, server, time.time()),
        )
        lib.conn.execute("DELETE FROM team_outbox WHERE run_id = ?", (run_id,))


def mark_failed(lib: Library, run_id: int, error: str) -> None:
    """A try to publish the run failed: it stays in the outbox with the reason."""
    lib.conn.execute(
        "UPDATE team_outbox SET tries = tries + 1, last_error = ? WHERE run_id = ?",
        (error[:500], run_id),
    )


def published_count(lib: Library) -> int:
    return int(lib.conn.execute("SELECT COUNT(*) FROM team_published").fetchone()[0])


def is_published(lib: Library, run_id: int) -> bool:
    row = lib.conn.execute("SELECT 1 FROM team_published WHERE run_id = ?", (run_id,)).fetchone()
    return row is not None


def forget_published(lib: Library) -> None:
    """Another team server: no run is published there yet (the UUIDs stay the runs')."""
    lib.conn.execute("DELETE FROM team_published")


def running_here(lib: Library) -> list[tuple[int, float]]:
    """The runs this process is recording, with the time up to which each is stored."""
    from pairbench.library.ownership import current_owner

    host, pid, _token = current_owner()
    rows = lib.conn.execute(
        "SELECT id, updated_at FROM runs WHERE status = 'running' AND owner_host = ? "
        "AND owner_pid = ? ORDER BY id",
        (host, pid),
    ).fetchall()
    return [(int(i), float(u)) for i, u in rows]
