"""Run use cases shared by the window and the CLI: find, count, show, edit and delete runs.

Filtering, sorting and paging happen in SQL (``library.runs``); a ``RunFilter`` says what,
in which order (``SortKey``) and which page. Functions taking ``run_ids`` work on one run
as on many, in one transaction, and change nothing when one of them cannot be changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pairbench.domain import Run
from pairbench.library import Library, LibraryError
from pairbench.library import runs as stored
from pairbench.library.runs import SORT_KEYS, IdRange, RunFilter, SortKey
from pairbench.services.runs_json import runs_json_parts

if TYPE_CHECKING:
    from pairbench.domain import Series
    from pairbench.domain.diagnosis import Diagnosis

__all__ = [
    "SORT_KEYS",
    "IdRange",
    "LibraryError",
    "RunFilter",
    "RunShown",
    "SortKey",
    "add_tags",
    "count_runs",
    "delete_run",
    "delete_runs",
    "edit_run",
    "find_run_ids",
    "find_runs",
    "get_run",
    "remove_tags",
    "runs_list_json",
    "runs_list_json_parts",
    "set_label",
    "set_notes",
    "set_tags",
    "show_run",
]


def find_runs(lib: Library, flt: RunFilter | None = None) -> list[Run]:
    """The runs matching ``flt``, in its order, one page (all of them without a limit)."""
    return stored.list_runs(lib, flt)


def find_run_ids(lib: Library, flt: RunFilter | None = None) -> list[int]:
    """The ids of the runs ``find_runs`` returns, in the same order (nothing decoded)."""
    return stored.list_run_ids(lib, flt)


def count_runs(lib: Library, flt: RunFilter | None = None) -> int:
    """How many runs match ``flt`` (all pages): one ``count(*)`` on an index."""
    return stored.count_runs(lib, flt)


def runs_list_json(lib: Library, flt: RunFilter | None = None) -> str:
    """The runs ``find_runs`` returns as one JSON array of ``export.run_json.run_fields``
    objects (``runs list --json``), built from raw rows: no ``Run`` per row."""
    return "".join(runs_list_json_parts(lib, flt))


def runs_list_json_parts(lib: Library, flt: RunFilter | None = None) -> Iterator[str]:
    """``runs_list_json`` in consecutive pieces, to write one after the other (the rows are
    read at once; the pieces are made as they are taken, and need the library no more)."""
    return runs_json_parts(stored.list_run_rows(lib, flt))


def get_run(lib: Library, run_id: int) -> Run:
    """One run; ``LibraryError`` if there is none with this id."""
    return stored.get_run(lib, run_id)


@dataclass(frozen=True, slots=True)
class RunShown:
    """One run as ``runs show`` presents it: its fields, series and stored analyses."""

    run: Run
    series: list[Series] = field(default_factory=list)
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What limited the run (stored with it, or computed now for a run without one).
    diagnosis: Diagnosis | None = None


def show_run(lib: Library, run_id: int) -> RunShown:
    """One run with its series, analyses and verdict; ``LibraryError`` if there is none."""
    # Imported here: series need numpy, which listing runs does not load (CLI start time).
    from pairbench.engine.diagnose import verdict_of
    from pairbench.library.analyses import get_analyses
    from pairbench.library.series import load_series

    run = stored.get_run(lib, run_id)
    arrays = load_series(lib, run_id)
    analyses = get_analyses(lib, run_id)
    verdict = verdict_of(run, arrays, analyses)
    return RunShown(run, [s.to_series() for s in arrays], analyses, verdict)


def delete_run(lib: Library, run_id: int) -> None:
    """Delete a run and its data; refuses a run still running."""
    stored.delete_runs(lib, [run_id])


def delete_runs(lib: Library, run_ids: Iterable[int]) -> list[int]:
    """Delete these runs and their data, all or none (none if one is running or missing)."""
    return stored.delete_runs(lib, run_ids)


def edit_run(
    lib: Library,
    run_id: int,
    *,
    label: str | None = None,
    tags: Mapping[str, str] | None = None,
    notes: str | None = None,
) -> Run:
    """Change one run's label, tags (replaced) and notes (None: leave); return it."""
    stored.edit_runs(lib, [run_id], label=label, tags=tags, notes=notes)
    return stored.get_run(lib, run_id)


def set_label(lib: Library, run_ids: Iterable[int], label: str) -> list[int]:
    """Give these runs one label."""
    return stored.edit_runs(lib, run_ids, label=label)


def set_notes(lib: Library, run_ids: Iterable[int], notes: str) -> list[int]:
    """Give these runs the same notes."""
    return stored.edit_runs(lib, run_ids, notes=notes)


def set_tags(lib: Library, run_ids: Iterable[int], tags: Mapping[str, str]) -> list[int]:
    """Replace these runs' tags with ``tags``."""
    return stored.edit_runs(lib, run_ids, tags=tags)


def add_tags(lib: Library, run_ids: Iterable[int], tags: Mapping[str, str]) -> list[int]:
    """Set these ``key=value`` tags on the runs, keeping their other tags."""
    return stored.edit_runs(lib, run_ids, add_tags=tags)


def edit_many(
    lib: Library, run_ids: Iterable[int], *, label: str | None, tag_words: Iterable[str]
) -> list[int]:
    """Edit several runs at once (the Library's bulk edit): a new label for all (None: keep
    theirs), and tags: ``key=value`` set, ``-key`` dropped, the others kept. ``ValueError``
    for a malformed tag (nothing changed)."""
    from pairbench.domain.host_text import parse_tags

    words = list(tag_words)
    dropped = [w[1:] for w in words if w.startswith("-")]
    added = parse_tags([w for w in words if not w.startswith("-")])
    for key in dropped:
        if not key or "=" in key:
            raise ValueError(f"to drop a tag write -KEY, got {'-' + key!r}")
    return stored.edit_runs(lib, run_ids, label=label, add_tags=added, remove_tags=dropped)


def remove_tags(lib: Library, run_ids: Iterable[int], keys: Iterable[str]) -> list[int]:
    """Drop these tag keys from the runs, keeping their other tags."""
    return stored.edit_runs(lib, run_ids, remove_tags=keys)
