"""A run list's criteria, order and page (``RunFilter``) as PostgreSQL for the team library.

The same meaning as ``run_filter.where_clause`` and ``order_page`` give on SQLite, on the team
schema's indexes (one per sortable column, text columns in the "C" collation so they sort as
SQLite's binary order does). Text search is ILIKE; a tag's value is compared lower-cased.
"""

from __future__ import annotations

from pairbench.library.run_filter import RunFilter

_ORDER_BY: dict[str, str] = {
    "id": "id {d}",
    "started": "started_at {d}, id {d}",
    "pair": "pair {d}, started_at {d}, id {d}",
    "tool": "tool {d}, started_at {d}, id {d}",
    "status": "status {d}, started_at {d}, id {d}",
    "label": "label {d}, started_at {d}, id {d}",
}
_LIKE_ESCAPE = str.maketrans({"\\": "\\\\", "%": "\\%", "_": "\\_"})


def where_clause(flt: RunFilter) -> tuple[str, list[object]]:
    """`` WHERE ...`` (or nothing) and its arguments (psycopg's ``%s``) for the criteria."""
    where: list[str] = []
    args: list[object] = []
    if flt.pair:
        where.append("pair = %s")
        args.append(flt.pair)
    if flt.tool:
        where.append("tool = %s")
        args.append(flt.tool)
    if flt.status:
        where.append("status = %s")
        args.append(flt.status.value)
    if flt.label is not None:
        where.append("label = %s")
        args.append(flt.label)
    if flt.text:
        where.append("(label ILIKE %s OR notes ILIKE %s OR tags ILIKE %s OR pair ILIKE %s)")
        args.extend([f"%{flt.text.translate(_LIKE_ESCAPE)}%"] * 4)
    if flt.since is not None:
        where.append("started_at >= %s")
        args.append(flt.since)
    if flt.until is not None:
        where.append("started_at < %s")
        args.append(flt.until)
    if flt.ids:
        singles = [r.low for r in flt.ids if r.low == r.high]
        parts: list[str] = []
        if singles:
            parts.append("id = ANY(%s::bigint[])")
            args.append(singles)
        for span in (r for r in flt.ids if r.low != r.high):
            parts.append("id BETWEEN %s AND %s")
            args.extend((span.low, span.high))
        where.append("(" + " OR ".join(parts) + ")")
    for wanted in flt.tags:
        key, sep, value = wanted.strip().partition("=")
        if not key.strip():
            continue
        if sep:
            where.append(
                "EXISTS (SELECT 1 FROM jsonb_each_text(runs.tags::jsonb) AS t "
                "WHERE t.key = %s AND lower(t.value) = %s)"
            )
            args.extend((key.strip(), value.strip().lower()))
        else:
            where.append("runs.tags::jsonb ? %s")
            args.append(key.strip())
    return (" WHERE " + " AND ".join(where) if where else ""), args


def order_page(flt: RunFilter, args: list[object]) -> str:
    """`` ORDER BY ... LIMIT %s OFFSET %s`` for the filter (appends its arguments)."""
    sql = " ORDER BY " + _ORDER_BY[flt.sort].format(d="DESC" if flt.descending else "ASC")
    if flt.limit is not None or flt.offset:
        sql += " LIMIT %s OFFSET %s"
        args.extend((flt.limit, flt.offset))
    return sql
