"""SQLite's own checks of a library: a fast one of the small tables, a full one of every page."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

# The tables a quick check covers on every open: small, read by every command, and enough to
# catch a damaged catalogue or run table before anything is written. The large tables of
# series chunks, their time rows (``times``) and raw output are covered by the full check.
FAST_CHECK_TABLES = ("hosts", "pairs", "runs", "host_keys", "analyses", "suites", "suite_jobs")
MAX_PROBLEMS = 20


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """What SQLite's check said: ``ok``, or the problems it listed (at most MAX_PROBLEMS)."""

    ok: bool
    problems: tuple[str, ...] = ()
    full: bool = False

    def summary(self) -> str:
        """One line: "ok", or the first problem and how many there are."""
        if self.ok:
            return "ok"
        more = f" and {len(self.problems) - 1} more" if len(self.problems) > 1 else ""
        return f"{self.problems[0]}{more}"


def fast_check(conn: sqlite3.Connection) -> IntegrityReport:
    """``PRAGMA quick_check`` of the small tables (milliseconds even at 10,000 runs)."""
    present = {
        str(row[0])
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    }
    problems: list[str] = []
    for table in FAST_CHECK_TABLES:
        if table in present:
            problems.extend(_quick_check(conn, f"quick_check({table})"))
    return _report(problems, full=False)


def full_check(conn: sqlite3.Connection) -> IntegrityReport:
    """``PRAGMA quick_check`` of every page of the file (seconds for a large library), then,
    if the pages are sound, that every chunk refers to a time row of its run and length."""
    problems = _quick_check(conn, f"quick_check({MAX_PROBLEMS})")
    if not problems:
        problems = _time_references(conn)
    return _report(problems, full=True)


# Chunks whose time row is missing, belongs to another run or holds another number of samples
# (the reference is kept by the code, not by a declared foreign key: see migrations 4 -> 5).
_BAD_TIME_REFERENCES = (
    "SELECT s.run_id, c.series_id, c.seq, c.time_id FROM chunks c "
    "JOIN series s ON s.id = c.series_id LEFT JOIN times tm ON tm.id = c.time_id "
    "WHERE tm.id IS NULL OR tm.run_id != s.run_id OR tm.n != c.n LIMIT ?"
)


def _time_references(conn: sqlite3.Connection) -> list[str]:
    tables = {
        str(row[0])
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    }
    if "times" not in tables:  # a library not yet migrated to the shared time axis
        return []
    try:
        rows = conn.execute(_BAD_TIME_REFERENCES, (MAX_PROBLEMS,)).fetchall()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    return [
        f"run {run_id}: chunk {seq} of series {series_id} refers to time row {time_id}, "
        "missing or not of that series' run and length"
        for run_id, series_id, seq, time_id in rows
    ]


def _quick_check(conn: sqlite3.Connection, pragma: str) -> list[str]:
    try:
        rows = conn.execute(f"PRAGMA {pragma}").fetchall()
    except sqlite3.DatabaseError as exc:  # so damaged that the check itself cannot run
        return [str(exc)]
    found = [str(row[0]) for row in rows]
    return [] if found == ["ok"] else found


def _report(problems: list[str], *, full: bool) -> IntegrityReport:
    kept = tuple(problems[:MAX_PROBLEMS])
    return IntegrityReport(ok=not kept, problems=kept, full=full)
