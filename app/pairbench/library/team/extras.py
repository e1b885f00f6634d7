"""A team run's raw output and analyses, read from the team library for its detail view
(the local library's ``load_raw_output`` and ``get_analyses``, on the server)."""

from __future__ import annotations

from typing import Any

from pairbench.library.analyses import _object
from pairbench.library.team.store import TeamError, TeamStore, _uuid


def load_extras(
    store: TeamStore, uuid: str
) -> tuple[list[tuple[str, str]], dict[str, dict[str, Any]]]:
    """The run's raw output as (source, text) chunks in order, and its analyses by kind
    (``TeamError`` when the team library has no such run)."""
    key = _uuid(uuid)
    with store._errors("read a run's raw output"), store._conn.transaction():
        found = store._conn.execute("SELECT id FROM runs WHERE uuid = %s::uuid", (key,)).fetchone()
        if found is None:
            raise TeamError(f"the team library has no run {uuid}")
        run = int(found[0])
        raw = store._conn.execute(
            "SELECT source, text FROM raw_chunks WHERE run_id = %s ORDER BY seq", (run,)
        ).fetchall()
        rows = store._conn.execute(
            "SELECT kind, json FROM analyses WHERE run_id = %s ORDER BY kind", (run,)
        ).fetchall()
    analyses = {str(kind): _object(text) for kind, text in rows}
    return [(str(s), str(t)) for s, t in raw], analyses
