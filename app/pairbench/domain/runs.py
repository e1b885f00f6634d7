"""What to run (a spec), and a run as the library keeps it, with its status."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
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


def _from_fields(cls: type[_T]) -> Callable[..., _T]:
    """``cls(*values)`` with every field given in order, made faster for frozen slotted
    dataclasses: the generated ``__init__`` sets each field through ``object.__setattr__``;
    this sets each slot through its descriptor, with no lookup. The object is the same (same
    class, same slots: equal, hashed, frozen and printed alike); there are no defaults to fill
    and no ``__post_init__`` to call (the classes here have none)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    if "__slots__" not in vars(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} must be slotted and have no __post_init__")
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    scope.update({f"_set_{name}": vars(cls)[name].__set__ for name in names})
    lines = [f"def make({', '.join(names)}):", "    obj = _new(_cls)"]
    lines += [f"    _set_{name}(obj, {name})" for name in names]
    lines.append("    return obj")
    exec("\n".join(lines), scope)  # like dataclasses' own generated methods
    made: Callable[..., _T] = scope["make"]
    made.__doc__ = f"``{cls.__name__}(...)`` with every field, positionally (bulk reads)."
    return made


# For code that builds thousands of runs at once from stored rows (``library.runs``): the same
# objects as ``RunSpec(...)`` and ``Run(...)`` given every field positionally, in about half
# the time.
spec_from_fields: Callable[[str, str, Mapping[str, str], str, Mapping[str, str]], RunSpec] = (
    _from_fields(RunSpec)
)
run_from_fields: Callable[
    [
        int,
        RunSpec,
        RunStatus,
        float,
        float | None,
        str,
        Mapping[str, float],
        bool,
        Mapping[str, Mapping[str, str]],
        str,
        Mapping[str, str],
        str,
        str | None,
    ],
    Run,
] = _from_fields(Run)
