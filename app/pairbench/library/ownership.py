"""Which process owns a running run, and marking runs whose owner died as interrupted."""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path


def process_token(pid: int) -> str:
    """A value that identifies a process beyond its (reusable) pid: its start time on Linux.

    A zombie (exited, not yet reaped by its parent) is dead and has no token.
    """
    try:
        stat_text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # Field 3 (state) and field 22 (starttime) come after the command name, in parentheses.
    fields = stat_text.rsplit(")", 1)[-1].split()
    if not fields or fields[0] == "Z":
        return ""
    return fields[19] if len(fields) > 19 else ""


def current_owner() -> tuple[str, int, str]:
    """This process as the owner of a run: (host name, pid, token)."""
    pid = os.getpid()
    return socket.gethostname(), pid, process_token(pid)


def owner_alive(host: str, pid: int, token: str) -> bool:
    """True if the owner may still be running; owners on other hosts are assumed alive."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return process_token(pid) == token


def recover_orphaned_runs(conn: sqlite3.Connection) -> list[int]:
    """Mark runs still ``running`` whose owner process is gone as ``interrupted``."""
    rows = conn.execute(
        "SELECT id, owner_host, owner_pid, owner_token FROM runs WHERE status = 'running'"
    ).fetchall()
    orphans = [int(r[0]) for r in rows if not owner_alive(str(r[1]), int(r[2]), str(r[3]))]
    for run_id in orphans:
        conn.execute(
            "UPDATE runs SET status = 'interrupted', ended_at = updated_at, "
            "error = COALESCE(error, 'the Pairbench process running it stopped unexpectedly') "
            "WHERE id = ? AND status = 'running'",
            (run_id,),
        )
    return orphans
