"""Publishing one local run to the team library: its row, then its data by binary COPY."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from pairbench.library.connection import LibraryError

# The local columns a published run copies (the owner columns stay on the machine).
LOCAL_RUN = (
    "pair, tool, tool_version, params, status, started_at, ended_at, updated_at, summary, "
    "summary_complete, host_facts, label, tags, notes, error"
)


def copy_run(
    conn: psycopg.Connection[tuple[Any, ...]],
    local: sqlite3.Connection,
    run_id: int,
    row: Sequence[Any],
    key: str,
    ran_by: str,
    origin: str,
    progress: Callable[[], None] = lambda: None,
) -> bool:
    """Inside the server's transaction: the run's row, then its data by COPY (binary);
    ``progress`` is told of each row the server took (a bound on silence, not on size)."""
    cur = conn.cursor()
    placeholders = ", ".join(["%s"] * (len(row) + 4))
    inserted = cur.execute(
        f"INSERT INTO runs (uuid, ran_by, origin, published_at, {LOCAL_RUN}) "
        f"VALUES ({placeholders}) ON CONFLICT (uuid) DO NOTHING RETURNING id".encode(),
        (key, ran_by, origin, time.time(), *row),
    ).fetchone()
    if inserted is None:
        return False
    team_id = int(inserted[0])
    series = local.execute(
        "SELECT id, stream, metric, unit FROM series WHERE run_id = ?", (run_id,)
    ).fetchall()
    series_ids = dict(
        zip((s[0] for s in series), _new_ids(cur, "series", len(series)), strict=True)
    )
    time_rows = local.execute("SELECT id FROM times WHERE run_id = ?", (run_id,)).fetchall()
    time_ids = dict(
        zip((t[0] for t in time_rows), _new_ids(cur, "times", len(time_rows)), strict=True)
    )
    with cur.copy(
        "COPY series (id, run_id, stream, metric, unit) FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int8", "int8", "text", "text", "text"])
        for sid, stream, metric, unit in series:
            copy.write_row((series_ids[sid], team_id, stream, metric, unit))
            progress()
    with cur.copy("COPY times (id, run_id, n, t) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int8", "int4", "bytea"])
        for tid, n, t in local.execute("SELECT id, n, t FROM times WHERE run_id = ?", (run_id,)):
            copy.write_row((time_ids[tid], team_id, n, t))
            progress()
    with cur.copy("COPY chunks (series_id, seq, n, time_id, v) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int4", "int4", "int8", "bytea"])
        for sid, seq, n, tid, v in local.execute(
            "SELECT c.series_id, c.seq, c.n, c.time_id, c.v FROM chunks c "
            "JOIN series s ON s.id = c.series_id WHERE s.run_id = ?",
            (run_id,),
        ):
            if tid not in time_ids:
                raise LibraryError(
                    f"run {run_id}: a chunk refers to a missing time row {tid}; "
                    f"`pairbench library check` checks the local library"
                )
            copy.write_row((series_ids[sid], seq, n, time_ids[tid], v))
            progress()
    with cur.copy("COPY raw_chunks (run_id, seq, source, text) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int4", "text", "text"])
        for seq, source, text in local.execute(
            "SELECT seq, source, text FROM raw_chunks WHERE run_id = ?", (run_id,)
        ):
            copy.write_row((team_id, seq, source, text))
            progress()
    analyses = local.execute(
        "SELECT kind, json, created_at FROM analyses WHERE run_id = ?", (run_id,)
    ).fetchall()
    if analyses:
        cur.executemany(
            "INSERT INTO analyses (run_id, kind, json, created_at) VALUES (%s, %s, %s, %s)",
            [(team_id, *a) for a in analyses],
        )
    return True


def _new_ids(cur: psycopg.Cursor[tuple[Any, ...]], table: str, count: int) -> list[int]:
    """``count`` fresh ids of ``table``'s identity column (rows then COPYed with them)."""
    if not count:
        return []
    rows = cur.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
        (table, count),
    ).fetchall()
    return [int(r[0]) for r in rows]


@contextmanager
def local_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """The local reads of one publish share one snapshot of the SQLite file."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
