"""A run list's criteria, order and page (``RunFilter``) as PostgreSQL for the team library:
``run_filter``'s SQL in PostgreSQL's dialect.

The same meaning as on SQLite, on the team schema's indexes (one per sortable column, text
columns in the "C" collation so they sort as SQLite's binary order does). Text search is
ILIKE (backslash escapes, as on SQLite); a tag's value is compared lower-cased.
"""

from __future__ import annotations

from pairbench.library.run_filter import Dialect, RunFilter, criteria_sql
from pairbench.library.run_filter import order_page as _order_page

POSTGRES = Dialect(
    p="%s",
    like="{col} ILIKE {p}",
    ids="id = ANY(%s::bigint[])",
    tag_value="EXISTS (SELECT 1 FROM jsonb_each_text(runs.tags::jsonb) AS t "
    "WHERE t.key = %s AND lower(t.value) = %s)",
    tag_key="runs.tags::jsonb ? %s",
    no_limit=None,
    fold=str.lower,
)


def where_clause(flt: RunFilter) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments (psycopg's ``%s``) for the criteria."""
    return criteria_sql(flt, POSTGRES)


def order_page(flt: RunFilter, args: list[object]) -> str:
    """`` ORDER BY ... LIMIT %s OFFSET %s`` for the filter (appends its arguments)."""
    return _order_page(flt, args, POSTGRES)
