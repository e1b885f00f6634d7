"""Analyses stored with their run: one JSON object per (run, kind), e.g. the burst estimate."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from typing import Any

from pairbench.library.connection import Library, LibraryError


def store_analysis(
    lib: Library, run_id: int, kind: str, payload: Mapping[str, Any], *, now: float | None = None
) -> None:
    """Store (or replace) the run's analysis of this kind; ``LibraryError`` if no such run."""
    if not kind or not kind.replace("_", "").isalnum():
        raise ValueError(f"analysis kind must be a word, got {kind!r}")
    text = json.dumps(_json_safe(payload), sort_keys=True, separators=(",", ":"), allow_nan=False)
    exists = lib.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone()
    if exists is None:
        raise LibraryError(f"no run with id {run_id}")
    lib.conn.execute(
        "INSERT INTO analyses (run_id, kind, json, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (run_id, kind) DO UPDATE SET json = excluded.json, "
        "created_at = excluded.created_at",
        (run_id, kind, text, time.time() if now is None else now),
    )


def get_analyses(lib: Library, run_id: int) -> dict[str, dict[str, Any]]:
    """The run's analyses by kind (empty when it has none)."""
    rows = lib.conn.execute(
        "SELECT kind, json FROM analyses WHERE run_id = ? ORDER BY kind", (run_id,)
    ).fetchall()
    return {str(kind): _object(text) for kind, text in rows}


def get_analysis(lib: Library, run_id: int, kind: str) -> dict[str, Any] | None:
    """The run's analysis of this kind, or None."""
    row = lib.conn.execute(
        "SELECT json FROM analyses WHERE run_id = ? AND kind = ?", (run_id, kind)
    ).fetchone()
    return None if row is None else _object(row[0])


def list_analyses(lib: Library, kind: str) -> list[tuple[int, dict[str, Any]]]:
    """Every stored analysis of this kind as (run id, payload), oldest run first."""
    rows = lib.conn.execute(
        "SELECT run_id, json FROM analyses WHERE kind = ? ORDER BY run_id", (kind,)
    ).fetchall()
    return [(int(run_id), _object(text)) for run_id, text in rows]


def analyses_of_runs(lib: Library, kind: str, run_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The analyses of this kind of the runs ``run_ids`` that have one, by run id (one query
    whatever the number of ids)."""
    if not run_ids:
        return {}
    rows = lib.conn.execute(
        "SELECT run_id, json FROM analyses WHERE kind = ? "
        "AND run_id IN (SELECT value FROM json_each(?))",
        (kind, json.dumps(run_ids)),
    ).fetchall()
    return {int(run_id): _object(text) for run_id, text in rows}


def _object(text: object) -> dict[str, Any]:
    value = json.loads(str(text))
    return value if isinstance(value, dict) else {"value": value}


def _json_safe(value: Any) -> Any:
    """NaN and infinity (which JSON lacks) become null, in nested mappings and lists too."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value
