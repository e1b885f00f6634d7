"""Typed queries on runs: create, finish, list (filter, sort, page in SQL), count, fetch, edit,
delete."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from typing import Any

from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.domain.timestamps import stored_time
from pairbench.library.codec import (
    dumps,
    loads_float_map,
    loads_nested_str_map,
    loads_str_map,
)
from pairbench.library.connection import Library, LibraryError, write_transaction
from pairbench.library.ownership import current_owner
from pairbench.library.run_filter import SORT_KEYS as SORT_KEYS
from pairbench.library.run_filter import IdRange as IdRange
from pairbench.library.run_filter import RunFilter as RunFilter
from pairbench.library.run_filter import SortKey as SortKey
from pairbench.library.run_filter import order_page, where_clause
from pairbench.library.run_rows import COLUMNS as _COLUMNS
from pairbench.library.run_rows import runs_from_rows
from pairbench.library.uuids import new_uuid


def create_run(
    lib: Library, spec: RunSpec, *, started_at: float | None = None, uuid: str | None = None
) -> int:
    """Insert a run in ``running`` state owned by this process; return its id. It gets its
    UUID now (``uuid``: the one it already has, e.g. from an evidence bundle).

    The first run a connection creates first checks every page of the file
    (``Library.ensure_whole``): a damaged library is refused, never written into.
    """
    lib.ensure_whole()
    now = time.time() if started_at is None else started_at
    host, pid, token = current_owner()
    cur = lib.conn.execute(
        "INSERT INTO runs (pair, tool, params, status, started_at, updated_at, label, tags, "
        "owner_host, owner_pid, owner_token, uuid) "
        "VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
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
            new_uuid() if uuid is None else uuid,
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
    """Runs matching the filter, in its order (newest first by default), one page of them."""
    flt = flt or RunFilter()
    where, args = where_clause(lib.conn, flt)
    sql = f"SELECT {_COLUMNS} FROM runs{where}{order_page(flt, args)}"
    return runs_from_rows(lib.conn.execute(sql, args).fetchall())


def count_runs(lib: Library, flt: RunFilter | None = None) -> int:
    """How many runs match the filter (its order, limit and offset aside)."""
    where, args = where_clause(lib.conn, flt or RunFilter())
    return int(lib.conn.execute(f"SELECT count(*) FROM runs{where}", args).fetchone()[0])


def list_run_ids(lib: Library, flt: RunFilter | None = None) -> list[int]:
    """The ids of the runs ``list_runs`` would return, in the same order."""
    flt = flt or RunFilter()
    where, args = where_clause(lib.conn, flt)
    sql = f"SELECT id FROM runs{where}{order_page(flt, args)}"
    return [int(row[0]) for row in lib.conn.execute(sql, args)]


def query_plan(lib: Library, flt: RunFilter | None = None) -> list[str]:
    """SQLite's plan for ``list_runs`` with this filter (does it search an index?)."""
    flt = flt or RunFilter()
    where, args = where_clause(lib.conn, flt)
    sql = f"EXPLAIN QUERY PLAN SELECT {_COLUMNS} FROM runs{where}{order_page(flt, args)}"
    return [str(row[3]) for row in lib.conn.execute(sql, args)]


# The stored fields of a run, in the order ``list_run_rows`` gives them. The mappings
# (params, tags, summary, host_facts) are their stored JSON text (``codec.dumps``).
ROW_FIELDS = (
    "id",
    "pair",
    "tool",
    "tool_version",
    "params",
    "status",
    "started_at",
    "ended_at",
    "label",
    "tags",
    "notes",
    "error",
    "summary",
    "summary_complete",
    "host_facts",
)
_ROW_COLUMNS = ", ".join(ROW_FIELDS)


def list_run_rows(lib: Library, flt: RunFilter | None = None) -> list[tuple[Any, ...]]:
    """The runs ``list_runs`` would return as raw rows of ``ROW_FIELDS``, nothing decoded:
    for outputs of thousands of runs that need no ``Run`` apiece."""
    flt = flt or RunFilter()
    where, args = where_clause(lib.conn, flt)
    sql = f"SELECT {_ROW_COLUMNS} FROM runs{where}{order_page(flt, args)}"
    return lib.conn.execute(sql, args).fetchall()


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


def edit_runs(
    lib: Library,
    run_ids: Iterable[int],
    *,
    label: str | None = None,
    tags: Mapping[str, str] | None = None,
    add_tags: Mapping[str, str] | None = None,
    remove_tags: Iterable[str] = (),
    notes: str | None = None,
) -> list[int]:
    """Edit the user's fields of several runs at once, in one transaction; return their ids.

    ``tags`` replaces each run's tags; ``add_tags`` sets these keys and ``remove_tags``
    drops these, keeping the others. ``LibraryError`` (nothing changed) if a run is missing.
    """
    ids = list(dict.fromkeys(run_ids))
    removed = set(remove_tags)
    with write_transaction(lib.conn):
        current = _existing_tags(lib.conn, ids)
        if label is not None:
            lib.conn.executemany(
                "UPDATE runs SET label = ? WHERE id = ?", [(label, i) for i in ids]
            )
        if notes is not None:
            lib.conn.executemany(
                "UPDATE runs SET notes = ? WHERE id = ?", [(notes, i) for i in ids]
            )
        if tags is not None or add_tags or removed:
            rows = []
            for run_id in ids:
                merged = dict(current[run_id] if tags is None else tags)
                merged.update(add_tags or {})
                for key in removed:
                    merged.pop(key, None)
                rows.append((dumps(merged), run_id))
            lib.conn.executemany("UPDATE runs SET tags = ? WHERE id = ?", rows)
    return ids


def delete_runs(lib: Library, run_ids: Iterable[int]) -> list[int]:
    """Delete several runs with their data, in one transaction; return their ids.

    ``LibraryError`` (nothing deleted) if one is missing or still running.
    """
    ids = list(dict.fromkeys(run_ids))
    with write_transaction(lib.conn):
        statuses = _statuses(lib.conn, ids)
        running = [i for i in ids if statuses[i] == RunStatus.RUNNING.value]
        if running:
            raise LibraryError(
                f"run {', '.join(map(str, running))} is still running; cancel it first"
            )
        lib.conn.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in ids])
    return ids


def _statuses(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """Each run's status; ``LibraryError`` naming the ids that are not there."""
    rows = conn.execute(
        "SELECT id, status FROM runs WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    ).fetchall()
    found = {int(i): str(status) for i, status in rows}
    _require_all(ids, found)
    return found


def _existing_tags(conn: sqlite3.Connection, ids: list[int]) -> dict[int, dict[str, str]]:
    rows = conn.execute(
        "SELECT id, tags FROM runs WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    ).fetchall()
    found = {int(i): loads_str_map(str(tags)) for i, tags in rows}
    _require_all(ids, found)
    return found


def _require_all(ids: list[int], found: Mapping[int, object]) -> None:
    missing = [i for i in ids if i not in found]
    if len(missing) == 1:
        raise LibraryError(f"no run with id {missing[0]}")
    if missing:
        raise LibraryError(f"no runs with ids {', '.join(map(str, missing))}")


def delete_run(lib: Library, run_id: int) -> None:
    """Delete a run with its series and raw output; refuses a run still running."""
    run = get_run(lib, run_id)
    if run.status is RunStatus.RUNNING:
        raise LibraryError(f"run {run_id} is still running; cancel it first")
    lib.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def discard_run(lib: Library, run_id: int) -> None:
    """Delete a run this process created and could not store whole (an import on a full
    disk), running or not."""
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
        started_at=stored_time(started_at),
        ended_at=None if ended_at is None else stored_time(ended_at),
        tool_version=str(tool_version),
        summary=loads_float_map(str(summary)),
        summary_complete=bool(complete),
        host_facts=loads_nested_str_map(str(facts)),
        label=str(label),
        tags=tag_map,
        notes=str(notes),
        error=None if error is None else str(error),
    )
