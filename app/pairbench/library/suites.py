"""Stored suites: a suite's plan, status and verdicts, and the jobs it ran (each a run)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pairbench.library.connection import Library, LibraryError, write_transaction
from pairbench.library.ownership import claim_row, current_owner, recover_orphaned_rows
from pairbench.library.uuids import new_uuid


@dataclass(frozen=True, slots=True)
class StoredSuite:
    """A suite as the library keeps it (parameters and verdicts as stored JSON objects)."""

    id: int
    kind: str
    host: str
    params: dict[str, Any]
    status: str
    created_at: float
    updated_at: float
    ended_at: float | None
    label: str
    facts: dict[str, Any]
    verdicts: dict[str, Any]
    error: str | None
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredJob:
    """One job of a suite: where it sits, its run (None if deleted) and its figures."""

    stage: int
    round: int
    job: int
    run_id: int | None
    status: str
    figures: dict[str, float]


_SUITE_COLUMNS = (
    "id, kind, host, params, status, created_at, updated_at, ended_at, label, facts, "
    "verdicts, error, tags"
)


def _dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(dict(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _object(text: object) -> dict[str, Any]:
    value = json.loads(str(text or "{}"))
    if not isinstance(value, dict):
        raise LibraryError(f"a stored suite field is not a JSON object: {str(text)[:80]!r}")
    return value


def create_suite(
    lib: Library,
    kind: str,
    host: str,
    params: Mapping[str, Any],
    *,
    label: str = "",
    tags: Mapping[str, str] | None = None,
) -> int:
    """Store a new suite, ``running`` and owned by this process, with its UUID; its id.
    ``tags`` say where it sits in a campaign, when a campaign runs it."""
    lib.ensure_whole()
    now = time.time()
    owner_host, pid, token = current_owner()
    cur = lib.conn.execute(
        "INSERT INTO suites (kind, host, params, status, created_at, updated_at, label, "
        "owner_host, owner_pid, owner_token, tags, uuid) "
        "VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            kind,
            host,
            _dumps(params),
            now,
            now,
            label,
            owner_host,
            pid,
            token,
            _dumps(tags or {}),
            new_uuid(),
        ),
    )
    return int(cur.lastrowid or 0)


def claim_suite(lib: Library, suite_id: int) -> None:
    """Mark a suite ``running`` by this process again (to resume it); ``LibraryError`` when
    another live process runs it."""
    get_suite(lib, suite_id)
    lib.ensure_whole()
    try:
        claim_row(lib.conn, "suites", suite_id, f"suite {suite_id}")
    except ValueError as exc:
        raise LibraryError(str(exc)) from None


def finish_suite(lib: Library, suite_id: int, status: str, *, error: str | None = None) -> None:
    """End a suite with this status (and the reason, for any end but completed)."""
    now = time.time()
    lib.conn.execute(
        "UPDATE suites SET status = ?, error = ?, ended_at = ?, updated_at = ? WHERE id = ?",
        (status, error, now, now, suite_id),
    )


def set_suite_facts(lib: Library, suite_id: int, facts: Mapping[str, Any]) -> None:
    """Store what was learnt about the host and target (model, size, scheduler...)."""
    lib.conn.execute(
        "UPDATE suites SET facts = ?, updated_at = ? WHERE id = ?",
        (_dumps(facts), time.time(), suite_id),
    )


def set_suite_verdicts(lib: Library, suite_id: int, verdicts: Mapping[str, Any]) -> None:
    """Store the steady-state verdict of every stage (by stage name)."""
    lib.conn.execute(
        "UPDATE suites SET verdicts = ?, updated_at = ? WHERE id = ?",
        (_dumps(verdicts), time.time(), suite_id),
    )


def record_job(
    lib: Library,
    suite_id: int,
    where: tuple[int, int, int],
    run_id: int | None,
    status: str,
    figures: Mapping[str, float],
) -> None:
    """Store (or replace, for a job run again) one job's run and figures."""
    stage, round_no, job = where
    clean = {k: float(v) for k, v in figures.items() if v == v and abs(v) != float("inf")}
    with write_transaction(lib.conn):
        lib.conn.execute(
            "INSERT INTO suite_jobs (suite_id, stage, round, job, run_id, status, figures) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (suite_id, stage, round, job) DO UPDATE "
            "SET run_id = excluded.run_id, status = excluded.status, figures = excluded.figures",
            (suite_id, stage, round_no, job, run_id, status, _dumps(clean)),
        )
        lib.conn.execute("UPDATE suites SET updated_at = ? WHERE id = ?", (time.time(), suite_id))


def suite_jobs(lib: Library, suite_id: int) -> list[StoredJob]:
    """A suite's jobs in the order they ran (stage, round, job)."""
    rows = lib.conn.execute(
        "SELECT stage, round, job, run_id, status, figures FROM suite_jobs WHERE suite_id = ? "
        "ORDER BY stage, round, job",
        (suite_id,),
    ).fetchall()
    return [
        StoredJob(
            int(stage),
            int(round_no),
            int(job),
            None if run_id is None else int(run_id),
            str(status),
            {str(k): float(v) for k, v in _object(figures).items()},
        )
        for stage, round_no, job, run_id, status, figures in rows
    ]


def _suite(row: tuple[Any, ...]) -> StoredSuite:
    (suite_id, kind, host, params, status, created, updated, ended, label, facts) = row[:10]
    verdicts, error, tags = row[10:]
    return StoredSuite(
        int(suite_id),
        str(kind),
        str(host),
        _object(params),
        str(status),
        float(created),
        float(updated),
        None if ended is None else float(ended),
        str(label),
        _object(facts),
        _object(verdicts),
        None if error is None else str(error),
        {str(k): str(v) for k, v in _object(tags).items()},
    )


def get_suite(lib: Library, suite_id: int) -> StoredSuite:
    """The suite with this id; ``LibraryError`` if there is none."""
    _recover_orphaned(lib)
    row = lib.conn.execute(
        f"SELECT {_SUITE_COLUMNS} FROM suites WHERE id = ?", (suite_id,)
    ).fetchone()
    if row is None:
        raise LibraryError(f"no suite with id {suite_id}")
    return _suite(row)


def list_suites(lib: Library, kind: str | None = None) -> list[StoredSuite]:
    """Every suite (of this kind), newest first."""
    _recover_orphaned(lib)
    where, args = (" WHERE kind = ?", (kind,)) if kind else ("", ())
    rows = lib.conn.execute(
        f"SELECT {_SUITE_COLUMNS} FROM suites{where} ORDER BY created_at DESC, id DESC", args
    ).fetchall()
    return [_suite(row) for row in rows]


def campaign_suites(lib: Library, campaign_id: int) -> list[StoredSuite]:
    """The suites a campaign started (tagged with its id), oldest first."""
    _recover_orphaned(lib)
    rows = lib.conn.execute(
        f"SELECT {_SUITE_COLUMNS} FROM suites WHERE EXISTS (SELECT 1 FROM json_each(tags) t "
        "WHERE t.key = 'campaign' AND t.value = ?) ORDER BY created_at, id",
        (str(campaign_id),),
    ).fetchall()
    return [_suite(row) for row in rows]


def delete_suite(lib: Library, suite_id: int, *, with_runs: bool) -> list[int]:
    """Delete a suite (not while it runs) and, with ``with_runs``, the runs of its jobs;
    the ids of the runs deleted."""
    suite = get_suite(lib, suite_id)
    if suite.status == "running":
        raise LibraryError(f"suite {suite_id} is still running; cancel it first")
    run_ids = [j.run_id for j in suite_jobs(lib, suite_id) if j.run_id is not None]
    with write_transaction(lib.conn):
        lib.conn.execute("DELETE FROM suites WHERE id = ?", (suite_id,))
        if with_runs:
            lib.conn.executemany("DELETE FROM runs WHERE id = ?", [(r,) for r in run_ids])
    return run_ids if with_runs else []


def _recover_orphaned(lib: Library) -> None:
    """Suites left ``running`` by a process that is gone become ``interrupted``."""
    recover_orphaned_rows(lib.conn, "suites")
