"""The library's edits of runs as engine jobs: a label, one run's fields, many runs at once.

A bad tag is a ``FieldError`` of the tags field (shown under it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pairbench.domain import Run
from pairbench.domain.failures import FieldError
from pairbench.domain.host_text import parse_tags, split_tags_text
from pairbench.services.library import Library
from pairbench.services.runs import edit_many, edit_run, get_run


def label_job(run_id: int, label: str) -> Callable[[Library], Awaitable[Run]]:
    """Set a run's label; the run as stored."""

    async def job(lib: Library) -> Run:
        edit_run(lib, run_id, label=label)
        return get_run(lib, run_id)

    return job


def edit_job(
    run_id: int, label: str, tags_line: str, notes: str
) -> Callable[[Library], Awaitable[Run]]:
    """Store one run's label, tags (as typed) and notes; the run as stored."""

    async def job(lib: Library) -> Run:
        try:
            tags = parse_tags(split_tags_text(tags_line))
        except ValueError as exc:
            raise FieldError("tags", str(exc)) from None
        edit_run(lib, run_id, label=label, tags=tags, notes=notes)
        return get_run(lib, run_id)

    return job


def bulk_job(
    ids: list[int], label: str | None, tags_line: str
) -> Callable[[Library], Awaitable[list[Run]]]:
    """The bulk edit: a label for all (if given) and tags set or dropped on all."""

    async def job(lib: Library) -> list[Run]:
        try:
            words = split_tags_text(tags_line)
            edit_many(lib, ids, label=label, tag_words=words)
        except ValueError as exc:
            raise FieldError("tags", str(exc)) from None
        return [get_run(lib, run_id) for run_id in ids]

    return job
