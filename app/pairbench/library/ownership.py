"""Which process owns a running run, and marking runs whose owner died as interrupted."""

from __future__ import annotations

import os
import sqlite3

from pairbench.library.progress import ProgressJournal

# ``socket`` and ``domain.processes`` (hashlib, secrets) are imported in the functions that
# use them: opening a library with no running run needs neither (CLI start time).


def current_owner() -> tuple[str, int, str]:
    """This process as the owner of a run: (host name, pid, token)."""
    import socket

    from pairbench.domain.processes import process_token

    pid = os.getpid()
    return socket.gethostname(), pid, process_token(pid)


def owner_alive(host: str, pid: int, token: str) -> bool:
    """True if the owner may still be running; owners on other hosts are assumed alive."""
    import socket

    from pairbench.domain.processes import process_alive

    if host != socket.gethostname():
        return True
    return process_alive(pid, token)


DIED = "the Pairbench process running it stopped unexpectedly"
# The tables whose rows a process owns while they run (their rows have status, owner_host,
# owner_pid, owner_token, updated_at, ended_at and error columns).
OWNED_TABLES = ("suites", "campaigns")


def claim_row(conn: sqlite3.Connection, table: str, row_id: int, what: str) -> None:
    """Mark a suite or campaign ``running`` by this process (to resume it); ``ValueError``
    naming ``what`` when another live process runs it, ``LookupError`` when there is none."""
    import time

    if table not in OWNED_TABLES:
        raise ValueError(f"not an owned table: {table}")
    row = conn.execute(
        f"SELECT status, owner_host, owner_pid, owner_token FROM {table} WHERE id = ?",
        (row_id,),
    ).fetchone()
    if row is None:
        raise LookupError(f"no {what}")
    if str(row[0]) == "running" and owner_alive(str(row[1]), int(row[2]), str(row[3])):
        raise ValueError(f"{what} is running in another Pairbench process")
    host, pid, token = current_owner()
    conn.execute(
        f"UPDATE {table} SET status = 'running', ended_at = NULL, error = NULL, "
        "updated_at = ?, owner_host = ?, owner_pid = ?, owner_token = ? WHERE id = ?",
        (time.time(), host, pid, token, row_id),
    )


def recover_orphaned_rows(conn: sqlite3.Connection, table: str) -> None:
    """Suites or campaigns left ``running`` by a process that is gone become
    ``interrupted``."""
    if table not in OWNED_TABLES:
        raise ValueError(f"not an owned table: {table}")
    rows = conn.execute(
        f"SELECT id, owner_host, owner_pid, owner_token FROM {table} WHERE status = 'running'"
    ).fetchall()
    for row_id, host, pid, token in rows:
        if not owner_alive(str(host), int(pid), str(token)):
            conn.execute(
                f"UPDATE {table} SET status = 'interrupted', ended_at = updated_at, "
                "error = COALESCE(error, ?) WHERE id = ? AND status = 'running'",
                (DIED, int(row_id)),
            )


def recover_orphaned_runs(conn: sqlite3.Connection, journal: ProgressJournal) -> list[str]:
    """Mark runs still ``running`` whose owner process is gone as ``interrupted``.

    Returns what the user must hear: runs that the journal says committed more samples than
    the library holds (their write-ahead log was lost), or that are missing altogether.
    """
    rows = conn.execute(
        "SELECT id, owner_host, owner_pid, owner_token FROM runs WHERE status = 'running'"
    ).fetchall()
    orphans = [int(r[0]) for r in rows if not owner_alive(str(r[1]), int(r[2]), str(r[3]))]
    for run_id in orphans:
        conn.execute(
            "UPDATE runs SET status = 'interrupted', ended_at = updated_at, "
            "error = COALESCE(error, ?) WHERE id = ? AND status = 'running'",
            (DIED, run_id),
        )
    return _reconcile(conn, journal)


def _reconcile(conn: sqlite3.Connection, journal: ProgressJournal) -> list[str]:
    """Compare the journal of runs whose recording process is gone with the library."""
    warnings: list[str] = []
    for entry in journal.entries():
        if owner_alive(entry.owner_host, entry.owner_pid, entry.owner_token):
            continue  # still recording (or on another computer): not ours to judge
        row = conn.execute(
            "SELECT started_at, status FROM runs WHERE id = ?", (entry.run_id,)
        ).fetchone()
        what = f"run {entry.run_id} ({entry.tool} on {entry.pair})"
        if row is None or abs(float(row[0]) - entry.started_at) > 1e-3:
            warnings.append(
                f"{what} is missing from the library: the process recording it committed "
                f"{entry.samples} samples, but they were lost with the library's write-ahead "
                "log (deleted or damaged while the run recorded)"
            )
        else:
            stored = int(
                conn.execute(
                    "SELECT COALESCE(SUM(c.n), 0) FROM chunks c JOIN series s "
                    "ON s.id = c.series_id WHERE s.run_id = ?",
                    (entry.run_id,),
                ).fetchone()[0]
            )
            if stored < entry.samples:
                note = (
                    f"{entry.samples - stored} of {entry.samples} committed samples were lost "
                    "with the library's write-ahead log (deleted or damaged while the run "
                    "recorded); the run keeps what had been checkpointed"
                )
                conn.execute(
                    "UPDATE runs SET status = CASE WHEN status = 'running' THEN 'interrupted' "
                    "ELSE status END, summary_complete = 0, "
                    "error = CASE WHEN error IS NULL OR error = '' THEN ? "
                    "ELSE error || '; ' || ? END WHERE id = ?",
                    (note, note, entry.run_id),
                )
                warnings.append(f"{what}: {note}")
        journal.forget(entry.run_id)
    return warnings
