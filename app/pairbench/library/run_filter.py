"""What a run list asks for: criteria, order and page, and the SQL that answers it on the
runs table's indexes (one per sortable column; see migrations)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from pairbench.domain import RunStatus

SortKey = Literal["id", "started", "pair", "tool", "status", "label"]
Member = Literal["any", "single", "suite", "campaign"]
"""Where a run belongs: anywhere, to no study (a single run), to a storage suite or to a
campaign (a campaign's storage cells' suite jobs included)."""
MEMBERS: tuple[Member, ...] = get_args(Member)
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
    the whole label; ``text`` searches label, notes, tags and pair (case-insensitive);
    ``member`` keeps single runs (in no suite nor campaign) or the runs of suites or of
    campaigns, ``member_id`` then those of that one suite or campaign.
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
    member: Member = "any"
    member_id: int | None = None

    def __post_init__(self) -> None:
        if self.sort not in _ORDER_BY:
            raise ValueError(f"unknown sort key {self.sort!r}; expected one of {SORT_KEYS}")
        if self.member not in MEMBERS:
            raise ValueError(f"unknown membership {self.member!r}; expected one of {MEMBERS}")
        if self.member_id is not None and self.member not in ("suite", "campaign"):
            raise ValueError("member_id names a suite or a campaign: member suite or campaign")
        if self.offset < 0 or (self.limit is not None and self.limit < 0):
            raise ValueError("limit and offset cannot be negative")


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one database writes the parts of a run list's SQL that differ: its placeholder,
    a case-insensitive text match, a list of ids in one parameter, a tag's value compared
    in any case, a tag's presence, and "no limit"."""

    p: str
    like: str  # one column's match, {col} and {p}
    ids: str  # "id is one of" a single parameter
    tag_value: str  # a tag key = value in any case: {p} twice (key, folded value)
    tag_key: str  # a tag key is present: {p}
    tag_like: str  # a tag's key or value matches: {p} twice (as ``like``)
    no_limit: object  # LIMIT's value for "all"
    fold: Callable[[str], str]  # a tag value as ``tag_value`` compares it
    in_suite: str  # the run is a suite's job; {one}: where one suite is asked for ("": none)
    in_campaign: str  # the run is a campaign's (or its suites' jobs'); {one} twice
    one_suite: str  # {one} of in_suite: the suite's id as a parameter
    one_campaign: str  # {one} of in_campaign: the campaign's id as a parameter

    def id_list(self, ids: list[int]) -> object:
        return json.dumps(ids) if self.p == "?" else ids


SQLITE = Dialect(
    p="?",
    like="{col} LIKE {p} ESCAPE '\\'",
    ids="id IN (SELECT value FROM json_each(?))",  # one parameter however many ids
    tag_value="EXISTS (SELECT 1 FROM json_each(runs.tags) AS t "
    "WHERE t.key = ? AND pb_casefold(t.value) = ?)",
    tag_key="EXISTS (SELECT 1 FROM json_each(runs.tags) AS t WHERE t.key = ?)",
    tag_like="EXISTS (SELECT 1 FROM json_each(runs.tags) AS t "
    "WHERE t.key LIKE ? ESCAPE '\\' OR t.value LIKE ? ESCAPE '\\')",
    no_limit=-1,
    fold=str.casefold,  # pb_casefold: Python's casefold registered in SQLite
    in_suite="EXISTS (SELECT 1 FROM suite_jobs sj WHERE sj.run_id = runs.id{one})",
    in_campaign="(EXISTS (SELECT 1 FROM campaign_runs cr WHERE cr.run_id = runs.id{one}) "
    "OR EXISTS (SELECT 1 FROM suite_jobs sj JOIN campaign_runs cr ON cr.suite_id = sj.suite_id "
    "WHERE sj.run_id = runs.id{one}))",
    one_suite=" AND sj.suite_id = ?",
    one_campaign=" AND cr.campaign_id = ?",
)


def where_clause(conn: sqlite3.Connection, flt: RunFilter) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments for the filter's criteria (SQLite)."""
    if any("=" in t for t in flt.tags):
        _add_casefold(conn)
    return criteria_sql(flt, SQLITE)


def criteria_sql(flt: RunFilter, d: Dialect) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments for the criteria, in dialect ``d``."""
    where: list[str] = []
    args: list[object] = []
    for column, value in (
        ("pair", flt.pair or None),
        ("tool", flt.tool or None),
        ("status", flt.status.value if flt.status else None),
        ("label", flt.label),
        ("started_at >=", flt.since),
        ("started_at <", flt.until),
    ):
        if value is not None:
            where.append(f"{column} {d.p}" if " " in column else f"{column} = {d.p}")
            args.append(value)
    if flt.text:
        # A tag's key or value holds the text (its stored JSON escapes quotes, backslashes and
        # non-ASCII letters): the JSON text holding the text as JSON writes it is the quick
        # test, each key and value the exact one.
        pattern = f"%{flt.text.translate(_LIKE_ESCAPE)}%"
        in_json = f"%{json.dumps(flt.text)[1:-1].translate(_LIKE_ESCAPE)}%"
        likes = [d.like.format(col=c, p=d.p) for c in ("label", "notes", "pair")]
        in_tags = f"({d.like.format(col='tags', p=d.p)} AND {d.tag_like})"
        where.append("(" + " OR ".join((*likes, in_tags)) + ")")
        args.extend((pattern, pattern, pattern, in_json, pattern, pattern))
    if flt.ids:
        singles = [r.low for r in flt.ids if r.low == r.high]
        parts: list[str] = []
        if singles:
            parts.append(d.ids)
            args.append(d.id_list(singles))
        for span in (r for r in flt.ids if r.low != r.high):
            parts.append(f"id BETWEEN {d.p} AND {d.p}")
            args.extend((span.low, span.high))
        where.append("(" + " OR ".join(parts) + ")")
    _membership(flt, d, where, args)
    for wanted in flt.tags:
        key, sep, value = wanted.strip().partition("=")
        if not key.strip():
            continue
        if sep:
            where.append(d.tag_value)
            args.extend((key.strip(), d.fold(value.strip())))
        else:
            where.append(d.tag_key)
            args.append(key.strip())
    return (" WHERE " + " AND ".join(where) if where else ""), args


def _membership(flt: RunFilter, d: Dialect, where: list[str], args: list[object]) -> None:
    """The filter's ``member`` criterion, appended to ``where`` and ``args`` (``ValueError``
    from a dialect without it: the team library's)."""
    if flt.member != "any" and not d.in_suite:
        raise ValueError("this library lists every run: it has no grouping by suite or campaign")
    if flt.member == "single":
        where.append(f"NOT {d.in_suite.format(one='')} AND NOT {d.in_campaign.format(one='')}")
    elif flt.member == "suite":
        one = "" if flt.member_id is None else d.one_suite
        where.append(d.in_suite.format(one=one))
        args.extend([flt.member_id] if one else [])
    elif flt.member == "campaign":
        one = "" if flt.member_id is None else d.one_campaign
        where.append(d.in_campaign.format(one=one))
        args.extend([flt.member_id] * 2 if one else [])


def order_page(flt: RunFilter, args: list[object], d: Dialect = SQLITE) -> str:
    """`` ORDER BY ... LIMIT ? OFFSET ?`` for the filter (appends its arguments)."""
    sql = " ORDER BY " + _ORDER_BY[flt.sort].format(d="DESC" if flt.descending else "ASC")
    if flt.limit is not None or flt.offset:
        sql += f" LIMIT {d.p} OFFSET {d.p}"
        args.extend((d.no_limit if flt.limit is None else flt.limit, flt.offset))
    return sql


def _casefold(value: object) -> str | None:
    return None if value is None else str(value).casefold()


def _add_casefold(conn: sqlite3.Connection) -> None:
    """``pb_casefold(x)``: Python's casefold in SQL (tag values compare in any case, any script)."""
    conn.create_function("pb_casefold", 1, _casefold, deterministic=True)
