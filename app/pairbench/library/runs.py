"""Typed queries on runs: create, finish, list, fetch, edit, delete."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass

from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.library.codec import (
    dumps,
    loads_float_map,
    loads_nested_str_map,
    loads_str_map,
)
from pairbench.library.connection import Library, LibraryError
from pairbench.library.ownership import current_owner

_COLUMNS = (
    "id, pair, tool, tool_version, params, status, started_at, ended_at, summary, "
    "summary_complete, host_facts, label, tags, notes, error"
)


@dataclass(frozen=True, slots=True)
class RunFilter:
    """Criteria for ``list_runs``; None means "any"."""

    pair: str | None = None
    tool: str | None = None
    status: RunStatus | None = None
    text: str | None = None
    limit: int | None = None


def create_run(lib: Library, spec: RunSpec, *, started_at: float | None = None) -> int:
    """Insert a run in ``running`` state owned by this process; return its id.

    The first run a connection creates first checks every page of the file
    (``Library.ensure_whole``): a damaged library is refused, never written into.
    """
    lib.ensure_whole()
    now = time.time() if started_at is None else started_at
    host, pid, token = current_owner()
    cur = lib.conn.execute(
        "INSERT INTO runs (pair, tool, params, status, started_at, updated_at, label, tags, "
        "owner_host, owner_pid, owner_token) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
        (
            spec.pair,
            spec.tool,
            dumps(spec.params),
            now,
            now,
            spec.label,
            dumps(spec.tags),
            host,
            pid,
            token,
        ),
    )
    return int(cur.lastrowid or 0)


def set_run_facts(
    lib: Library,
    run_id: int,
    *,
    tool_version: str | None = None,
    host_facts: Mapping[str, Mapping[str, str]] | None = None,
) -> None:
    """Record the tool version and host facts learned while the run starts."""
    if tool_version is not None:
        lib.conn.execute("UPDATE runs SET tool_version = ? WHERE id = ?", (tool_version, run_id))
    if host_facts is not None:
        lib.conn.execute(
            "UPDATE runs SET host_facts = ? WHERE id = ?",
            (dumps({k: dict(v) for k, v in host_facts.items()}), run_id),
        )


def finish_run(
    lib: Library,
    run_id: int,
    status: RunStatus,
    *,
    summary: Mapping[str, float],
    complete: bool,
    error: str | None = None,
    ended_at: float | None = None,
) -> None:
    """Store the outcome of a run; its status becomes final."""
    if not status.is_final:
        raise ValueError("finish_run needs a final status")
    now = time.time() if ended_at is None else ended_at
    lib.conn.execute(
        "UPDATE runs SET status = ?, ended_at = ?, updated_at = ?, summary = ?, "
        "summary_complete = ?, error = ? WHERE id = ?",
        (status.value, now, now, dumps(summary), int(complete), error, run_id),
    )
    lib.progress.forget(run_id)


def touch_run(conn: sqlite3.Connection, run_id: int, now: float) -> None:
    """Heartbeat: the time up to which a running run's data is stored."""
    conn.execute("UPDATE runs SET updated_at = ? WHERE id = ?", (now, run_id))


def get_run(lib: Library, run_id: int) -> Run:
    """The run with this id; ``LibraryError`` if there is none."""
    row = lib.conn.execute(f"SELECT {_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise LibraryError(f"no run with id {run_id}")
    return _row_to_run(row)


def list_runs(lib: Library, flt: RunFilter | None = None) -> list[Run]:
    """Runs matching the filter, newest first."""
    flt = flt or RunFilter()
    where: list[str] = []
    args: list[object] = []
    if flt.pair:
        where.append("pair = ?")
        args.append(flt.pair)
    if flt.tool:
        where.append("tool = ?")
        args.append(flt.tool)
    if flt.status:
        where.append("status = ?")
        args.append(flt.status.value)
    if flt.text:
        where.append("(label LIKE ? OR notes LIKE ? OR tags LIKE ? OR pair LIKE ?)")
        pattern = f"%{flt.text}%"
        args.extend([pattern] * 4)
    sql = f"SELECT {_COLUMNS} FROM runs"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY started_at DESC, id DESC"
    if flt.limit:
        sql += " LIMIT ?"
        args.append(flt.limit)
    return [_row_to_run(row) for row in lib.conn.execute(sql, args)]


def update_run_notes(
    lib: Library,
    run_id: int,
    *,
    label: str | None = None,
    tags: Mapping[str, str] | None = None,
    notes: str | None = None,
) -> None:
    """Edit the user's own fields of a run."""
    get_run(lib, run_id)
    if label is not None:
        lib.conn.execute("UPDATE runs SET label = ? WHERE id = ?", (label, run_id))
    if tags is not None:
        lib.conn.execute("UPDATE runs SET tags = ? WHERE id = ?", (dumps(tags), run_id))
    if notes is not None:
        lib.conn.execute("UPDATE runs SET notes = ? WHERE id = ?", (notes, run_id))


def delete_run(lib: Library, run_id: int) -> None:
    """Delete a run with its series and raw output; refuses a run still running."""
    run = get_run(lib, run_id)
    if run.status is RunStatus.RUNNING:
        raise LibraryError(f"run {run_id} is still running; cancel it first")
    lib.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def _row_to_run(row: tuple[object, ...]) -> Run:
    (
        run_id,
        pair,
        tool,
        tool_version,
        params,
        status,
        started_at,
        ended_at,
        summary,
        complete,
        facts,
        label,
        tags,
        notes,
        error,
    ) = row
    tag_map = loads_str_map(str(tags))
    spec = RunSpec(
        pair=str(pair),
        tool=str(tool),
        params=loads_str_map(str(params)),
        label=str(label),
        tags=tag_map,
    )
    return Run(
        id=int(str(run_id)),
        spec=spec,
        status=RunStatus(str(status)),
        started_at=float(str(started_at)),
        ended_at=None if ended_at is None else float(str(ended_at)),
        tool_version=str(tool_version),
        summary=loads_float_map(str(summary)),
        summary_complete=bool(complete),
        host_facts=loads_nested_str_map(str(facts)),
        label=str(label),
        tags=tag_map,
        notes=str(notes),
        error=None if error is None else str(error),
    )
