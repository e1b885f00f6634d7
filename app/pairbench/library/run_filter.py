"""What a run list asks for: criteria, order and page, and the SQL that answers it on the
runs table's indexes (one per sortable column; see migrations)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Literal, get_args

from pairbench.domain import RunStatus

SortKey = Literal["id", "started", "pair", "tool", "status", "label"]
"""The columns a run list can be sorted by (the Library tab's sortable columns)."""
SORT_KEYS: tuple[SortKey, ...] = get_args(SortKey)

# ORDER BY per sort key: ties broken by start time, then id, in the same direction, so every
# order is total and each one walks an index (runs_started, runs_pair, ...; see migrations).
_ORDER_BY: dict[str, str] = {
    "id": "id {d}",
    "started": "started_at {d}, id {d}",
    "pair": "pair {d}, started_at {d}, id {d}",
    "tool": "tool {d}, started_at {d}, id {d}",
    "status": "status {d}, started_at {d}, id {d}",
    "label": "label {d}, started_at {d}, id {d}",
}
# Text search takes % and _ as themselves: LIKE ... ESCAPE '\'.
_LIKE_ESCAPE = str.maketrans({"\\": "\\\\", "%": "\\%", "_": "\\_"})


@dataclass(frozen=True, slots=True)
class IdRange:
    """Run ids from ``low`` to ``high``, both included (a single id: ``IdRange(n, n)``)."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class RunFilter:
    """Criteria, order and page for ``list_runs`` and ``count_runs``; None or empty: "any".

    ``since``/``until`` bound the start time (epoch seconds, ``since`` included, ``until``
    excluded); ``ids`` keeps runs in any of the ranges; ``tags`` holds ``key`` or
    ``key=value`` (value compared case-insensitively), every one must match; ``label`` is
    the whole label; ``text`` searches label, notes, tags and pair (case-insensitive).
    """

    pair: str | None = None
    tool: str | None = None
    status: RunStatus | None = None
    text: str | None = None
    limit: int | None = None
    since: float | None = None
    until: float | None = None
    ids: tuple[IdRange, ...] = ()
    label: str | None = None
    tags: tuple[str, ...] = ()
    sort: SortKey = "started"
    descending: bool = True
    offset: int = 0

    def __post_init__(self) -> None:
        if self.sort not in _ORDER_BY:
            raise ValueError(f"unknown sort key {self.sort!r}; expected one of {SORT_KEYS}")
        if self.offset < 0 or (self.limit is not None and self.limit < 0):
            raise ValueError("limit and offset cannot be negative")


def where_clause(conn: sqlite3.Connection, flt: RunFilter) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments for the filter's criteria."""
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
    if flt.label is not None:
        where.append("label = ?")
        args.append(flt.label)
    if flt.text:
        where.append(
            "(label LIKE ? ESCAPE '\\' OR notes LIKE ? ESCAPE '\\' "
            "OR tags LIKE ? ESCAPE '\\' OR pair LIKE ? ESCAPE '\\')"
        )
        args.extend([f"%{flt.text.translate(_LIKE_ESCAPE)}%"] * 4)
    if flt.since is not None:
        where.append("started_at >= ?")
        args.append(flt.since)
    if flt.until is not None:
        where.append("started_at < ?")
        args.append(flt.until)
    if flt.ids:
        singles = [r.low for r in flt.ids if r.low == r.high]
        spans = [r for r in flt.ids if r.low != r.high]
        parts: list[str] = []
        if singles:  # one parameter however many ids (SQLite allows 32,766 parameters)
            parts.append("id IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(singles))
        for span in spans:
            parts.append("id BETWEEN ? AND ?")
            args.extend((span.low, span.high))
        where.append("(" + " OR ".join(parts) + ")")
    for wanted in flt.tags:
        key, sep, value = wanted.strip().partition("=")
        if not key.strip():
            continue
        if sep:
            _add_casefold(conn)
            where.append(
                "EXISTS (SELECT 1 FROM json_each(runs.tags) AS t "
                "WHERE t.key = ? AND pb_casefold(t.value) = ?)"
            )
            args.extend((key.strip(), value.strip().casefold()))
        else:
            where.append("EXISTS (SELECT 1 FROM json_each(runs.tags) AS t WHERE t.key = ?)")
            args.append(key.strip())
    return (" WHERE " + " AND ".join(where) if where else ""), args


def order_page(flt: RunFilter, args: list[object]) -> str:
    """`` ORDER BY ... LIMIT ? OFFSET ?`` for the filter (appends its arguments)."""
    sql = " ORDER BY " + _ORDER_BY[flt.sort].format(d="DESC" if flt.descending else "ASC")
    if flt.limit is not None or flt.offset:
        sql += " LIMIT ? OFFSET ?"
        args.extend((-1 if flt.limit is None else flt.limit, flt.offset))
    return sql


def _casefold(value: object) -> str | None:
    return None if value is None else str(value).casefold()


def _add_casefold(conn: sqlite3.Connection) -> None:
    """``pb_casefold(x)``: Python's casefold in SQL (tag values compare in any case, any script)."""
    conn.create_function("pb_casefold", 1, _casefold, deterministic=True)
