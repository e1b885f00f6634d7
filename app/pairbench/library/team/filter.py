"""A run list's criteria, order and page (``RunFilter``) as PostgreSQL for the team library:
``run_filter``'s SQL in PostgreSQL's dialect.

The same meaning as on SQLite, on the team schema's indexes (one per sortable column, text
columns in the "C" collation so they sort as SQLite's binary order does). Text search is
ILIKE (backslash escapes, as on SQLite); a tag's value is compared lower-cased in ICU's
root collation: the database's own may be "C", whose ``lower`` leaves non-ASCII letters. A
server built without ICU (no "und-x-icu" collation) compares in the database's collation.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any

from pairbench.library.run_filter import Dialect, RunFilter, criteria_sql
from pairbench.library.run_filter import order_page as _order_page

POSTGRES = Dialect(
    p="%s",
    like="{col} ILIKE {p}",
    ids="id = ANY(%s::bigint[])",
    tag_value="EXISTS (SELECT 1 FROM jsonb_each_text(runs.tags::jsonb) AS t "
    'WHERE t.key = %s AND lower(t.value COLLATE "und-x-icu") = %s)',
    tag_key="runs.tags::jsonb ? %s",
    tag_like="EXISTS (SELECT 1 FROM jsonb_each_text(runs.tags::jsonb) AS t "
    "WHERE t.key ILIKE %s OR t.value ILIKE %s)",
    no_limit=None,
    fold=str.lower,
    # The team library lists every run: no single-run / suite / campaign grouping (a
    # RunFilter asking for one is refused; see run_filter._membership).
    in_suite="",
    in_campaign="",
    one_suite="",
    one_campaign="",
)


# Without ICU: a tag's value lower-cased in the database's own collation.
POSTGRES_NO_ICU = dataclasses.replace(
    POSTGRES, tag_value=POSTGRES.tag_value.replace(' COLLATE "und-x-icu"', "")
)
_HAS_ICU: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def dialect_of(conn: Any) -> Dialect:
    """The dialect for this connection's server: asked once per connection whether it has
    ICU's root collation."""
    has = _HAS_ICU.get(conn)
    if has is None:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')"
        ).fetchone()
        has = _HAS_ICU[conn] = bool(row and row[0])
    return POSTGRES if has else POSTGRES_NO_ICU


def where_clause(flt: RunFilter, conn: Any = None) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments (psycopg's ``%s``) for the criteria, for
    the server of ``conn`` (None: one with ICU)."""
    return criteria_sql(flt, POSTGRES if conn is None else dialect_of(conn))


def order_page(flt: RunFilter, args: list[object]) -> str:
    """`` ORDER BY ... LIMIT %s OFFSET %s`` for the filter (appends its arguments)."""
    return _order_page(flt, args, POSTGRES)
