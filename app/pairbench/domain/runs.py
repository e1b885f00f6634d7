"""What to run (a spec), and a run as the library keeps it, with its status."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field


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
