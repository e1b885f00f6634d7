"""What to run (a spec), and a run as the library keeps it, with its status."""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Any, TypeVar

_T = TypeVar("_T")


class RunStatus(enum.StrEnum):
    """How a run stands or ended."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    # The tool went quiet (a data-path outage) for longer than a few of its intervals: what
    # was measured is kept, the summary is incomplete and the outages are in ``error``.
    STALLED = "stalled"

    @property
    def is_final(self) -> bool:
        """True once the run can no longer change."""
        return self is not RunStatus.RUNNING


@dataclass(frozen=True, slots=True)
class RunSpec:
    """A request to run one tool on one pair with validated parameters (strings as given)."""

    pair: str
    tool: str
    params: Mapping[str, str] = field(default_factory=dict)
    label: str = ""
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Run:
    """A run as stored: its spec, outcome and metadata (series live apart, see ``Series``)."""

    id: int
    spec: RunSpec
    status: RunStatus
    started_at: float
    ended_at: float | None = None
    tool_version: str = ""
    summary: Mapping[str, float] = field(default_factory=dict)
    summary_complete: bool = False
    host_facts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    label: str = ""
    tags: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""
    error: str | None = None

    @property
    def duration(self) -> float | None:
        """Seconds from start to end, or None while running."""
        return None if self.ended_at is None else self.ended_at - self.started_at


def _from_columns(cls: type[_T]) -> Callable[..., list[_T]]:
    """``[cls(*values) for values in zip(*columns)]`` with every field given, a column per
    field, made faster for frozen slotted dataclasses: each object is made empty, then each
    field is set for all of them by one C-level ``map`` over its slot's descriptor (no Python
    frame per object). The objects are the same (same class, same slots: equal, hashed,
    frozen and printed alike); there are no defaults to fill and no ``__post_init__`` to call
    (the classes here have none)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    if "__slots__" not in vars(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} must be slotted and have no __post_init__")
    setters = [vars(cls)[name].__set__ for name in names]
    new = object.__new__

    def make(*columns: Sequence[Any]) -> list[_T]:
        if len(columns) != len(setters):
            raise TypeError(f"{cls.__name__} needs {len(setters)} columns, got {len(columns)}")
        count = len(columns[0])
        if any(len(column) != count for column in columns):
            raise ValueError(f"the columns of {cls.__name__} differ in length")
        made: list[_T] = list(map(new, repeat(cls, count)))
        for setter, column in zip(setters, columns, strict=True):
            deque(map(setter, made, column), maxlen=0)  # runs the map, keeps nothing
        return made

    make.__doc__ = f"``{cls.__name__}(...)`` for each row of columns, one per field (bulk reads)."
    return make


# For code that builds thousands of runs at once from stored rows (``library.runs``): the same
# objects as ``RunSpec(...)`` and ``Run(...)`` given every field, a column of values per field
# in the dataclasses' order, in about half the time.
specs_from_columns: Callable[..., list[RunSpec]] = _from_columns(RunSpec)
runs_from_columns: Callable[..., list[Run]] = _from_columns(Run)
