"""Runs made from stored rows by the thousand (``list_runs``): the same ``Run`` objects as
one ``Run(...)`` per row gives, in about a third of its time.

What remains of a listing's cost once SQLite has answered is making a ``Run`` and its
``RunSpec`` per row. Two things make that cheap here:

- A frozen dataclass sets each field through ``object.__setattr__`` (a call per field). Each
  run is filled in as a *draft* instead: a class with the same slots in the same order and
  no ``__setattr__`` of its own, whose fields the interpreter stores directly (unpacked from
  the row itself: no transposing, no column per field). The draft then becomes a ``Run``
  (``__class__`` assigned, which CPython allows between classes of one layout; checked when
  this module is imported). The result is the dataclass's own object: same class, equal,
  printed, frozen and unhashable alike.
- The stored JSON mappings are decoded when first read (``codec.LazyJsonMap``); parameters,
  host facts and tags repeat from run to run, so the runs of one text share one mapping.

A run takes three new objects (run, spec, summary): fewer objects mean fewer passes of the
cycle collector, which runs every few hundred of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from operator import itemgetter
from typing import Any

from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.domain.timestamps import stored_time
from pairbench.library.codec import LazyFloatMap, LazyJsonMap

# The stored fields of a run in the order ``runs_from_rows`` reads them (a SELECT list).
COLUMNS = (
    "id, pair, tool, tool_version, params, status, started_at, ended_at, summary, "
    "summary_complete, host_facts, label, tags, notes, error"
)
_SUMMARY, _PARAMS, _FACTS, _TAGS = itemgetter(8), itemgetter(4), itemgetter(10), itemgetter(12)
_STARTED, _ENDED = itemgetter(6), itemgetter(7)
_STATUS_OF = {status.value: status for status in RunStatus}


class _SpecDraft:
    """A ``RunSpec`` being filled in (its slots, in its order)."""

    __slots__ = tuple(f.name for f in fields(RunSpec))
    pair: str
    tool: str
    params: LazyJsonMap
    label: str
    tags: LazyJsonMap


class _RunDraft:
    """A ``Run`` being filled in (its slots, in its order)."""

    __slots__ = tuple(f.name for f in fields(Run))
    id: int
    spec: _SpecDraft
    status: RunStatus
    started_at: float
    ended_at: float | None
    tool_version: str
    summary: LazyFloatMap
    summary_complete: bool
    host_facts: LazyJsonMap
    label: str
    tags: LazyJsonMap
    notes: str
    error: str | None


def _run(
    row: Sequence[Any],
    summary: LazyFloatMap,
    params: LazyJsonMap,
    facts: LazyJsonMap,
    tags: LazyJsonMap,
) -> Any:
    """One run from a row of ``COLUMNS`` and its decoded-when-read mappings."""
    run = _RunDraft()
    (
        run.id,
        pair,
        tool,
        run.tool_version,
        _,  # params: given
        status,
        run.started_at,
        run.ended_at,
        _,  # summary: given
        complete,
        _,  # host facts: given
        label,
        _,  # tags: given
        run.notes,
        run.error,
        *_extra,  # columns a caller selected after these (the team library's own)
    ) = row
    spec = _SpecDraft()
    spec.pair = pair
    spec.tool = tool
    spec.params = params
    spec.label = label
    spec.tags = tags
    spec.__class__ = RunSpec  # type: ignore[assignment]
    run.spec = spec
    run.status = _STATUS_OF[status]
    run.summary = summary
    run.summary_complete = bool(complete)
    run.host_facts = facts
    run.label = label
    run.tags = tags
    run.__class__ = Run  # type: ignore[assignment]
    return run


def runs_from_rows(rows: Sequence[Sequence[Any]]) -> list[Run]:
    """A ``Run`` per row of ``COLUMNS``, in order; equal to ``library.runs.get_run``'s."""
    rows = _times_as_floats(rows)
    runs: list[Run] = list(
        map(
            _run,
            rows,
            LazyFloatMap.many(list(map(_SUMMARY, rows))),
            _lazy_distinct(list(map(_PARAMS, rows))),
            _lazy_distinct(list(map(_FACTS, rows))),
            _lazy_distinct(list(map(_TAGS, rows))),
        )
    )
    return runs


def _times_as_floats(rows: Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """The rows, with start and end times that are no float (text or bytes a hostile or
    damaged library holds) as ``stored_time`` reads them: a run always has float times."""
    started = set(map(type, map(_STARTED, rows)))
    ended = set(map(type, map(_ENDED, rows)))
    if started <= {float} and ended <= {float, type(None)}:
        return rows
    return [
        (
            *row[:6],
            stored_time(row[6]),
            None if row[7] is None else stored_time(row[7]),
            *row[8:],
        )
        for row in rows
    ]


def _lazy_distinct(texts: Sequence[str | None]) -> list[LazyJsonMap]:
    """One lazily decoded mapping per distinct stored text, shared by the rows that hold it."""
    unique = list(set(texts))
    shared = dict(zip(unique, LazyJsonMap.many(unique), strict=True))
    return list(map(shared.__getitem__, texts))


def _check_drafts() -> None:
    """Fail at import, not in a listing, if a draft cannot become its dataclass: a
    ``__post_init__`` a draft would skip, a field ``_run`` leaves unset (one added to the
    dataclass), or a Python whose ``__class__`` assignment refuses these layouts."""
    row = (1, "p", "t", "v", "{}", "completed", 1.0, 2.0, "{}", 1, "{}", "l", "{}", "n", None)
    (made,) = runs_from_rows([row])
    for obj, cls in ((made.spec, RunSpec), (made, Run)):
        unset = [f.name for f in fields(cls) if not hasattr(obj, f.name)]
        if type(obj) is not cls or unset or hasattr(cls, "__post_init__"):
            raise TypeError(f"run_rows makes {cls.__name__} objects no longer (unset: {unset})")


_check_drafts()
