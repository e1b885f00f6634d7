"""Each run, storage suite and campaign has a UUID from the moment it is created (recorded,
imported, started): the name it keeps wherever it goes, so a run that reaches the team library
by two ways (an evidence bundle imported elsewhere, a copied library file) is stored once."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not at import: the migrations (which connection imports) need this module
    from pairbench.library.connection import Library

UUID_TABLES = ("runs", "suites", "campaigns")
UUID4_SQL = (  # new_uuid() in SQL, for rows made before they had one (migration 11)
    "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || "
    "substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || "
    "substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"
)


def new_uuid() -> str:
    """A fresh random UUID, as stored (lower case, with hyphens)."""
    import uuid  # here: 4 ms at import, and most commands make no run (CLI start time)

    return str(uuid.uuid4())


def normal_uuid(text: object) -> str:
    """``text`` as a stored UUID (lower case, with hyphens); ``ValueError`` when it is none."""
    import uuid

    if not isinstance(text, str) or len(text) > 45:
        raise ValueError(f"{str(text)[:45]!r} is not a UUID")
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise ValueError(f"{text!r} is not a UUID") from None


def uuid_of(lib: Library, table: str, row_id: int, what: str) -> str:
    """The UUID of row ``row_id`` of ``table`` (runs, suites, campaigns); one given now for a
    row that has none (one written by an older Pairbench meanwhile). ``what`` names the row
    in ``LibraryError`` when it does not exist."""
    from pairbench.library.connection import LibraryError

    if table not in UUID_TABLES:
        raise LibraryError(f"{table!r} has no UUIDs")
    row = lib.conn.execute(f"SELECT uuid FROM {table} WHERE id = ?", (row_id,)).fetchone()
    if row is None:
        raise LibraryError(f"no {what} with id {row_id}")
    if row[0]:
        return str(row[0])
    lib.conn.execute(
        f"UPDATE {table} SET uuid = ? WHERE id = ? AND uuid IS NULL", (new_uuid(), row_id)
    )
    return uuid_of(lib, table, row_id, what)


def run_by_uuid(lib: Library, key: str) -> int | None:
    """The id of this library's run with this UUID, or None."""
    row = lib.conn.execute("SELECT id FROM runs WHERE uuid = ?", (key,)).fetchone()
    return None if row is None else int(row[0])
