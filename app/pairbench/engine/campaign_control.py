"""What a campaign is told and tells while it runs: its observer, its control (cancel,
pause, resume), how it ended, and the gate that lets a run observer hear one run at a time."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from pairbench.domain import Line, Record, Run, RunSpec
from pairbench.domain.campaign import CampaignStatus, Cell, RunKey
from pairbench.engine.campaign_run import RunOutcome
from pairbench.engine.observer import RunObserver


class CampaignObserver(Protocol):
    """What a campaign reports as it goes (from the engine thread; return quickly)."""

    def on_run_started(self, key: RunKey, cell: Cell) -> None: ...

    def on_run_finished(self, key: RunKey, cell: Cell, outcome: RunOutcome) -> None: ...

    def on_notice(self, text: str) -> None: ...

    def on_waiting(self, seconds: float, why: str) -> None: ...


class NullCampaignObserver:
    """Hears nothing."""

    def on_run_started(self, key: RunKey, cell: Cell) -> None:
        return None

    def on_run_finished(self, key: RunKey, cell: Cell, outcome: RunOutcome) -> None:
        return None

    def on_notice(self, text: str) -> None:
        return None

    def on_waiting(self, seconds: float, why: str) -> None:
        return None


@dataclass
class CampaignControl:
    """Cancel (keeps every finished run), pause and resume between runs."""

    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    going: asyncio.Event = field(default_factory=asyncio.Event)  # clear = paused

    def __post_init__(self) -> None:
        self.going.set()


@dataclass(frozen=True, slots=True)
class CampaignOutcome:
    """How a campaign run (or resumed) ended."""

    campaign_id: int
    status: CampaignStatus
    runs: int  # runs started in this session
    error: str | None = None
    run_ids: tuple[int, ...] = ()  # every run the campaign holds, in the order they started
    suite_ids: tuple[int, ...] = ()  # every storage suite its storage cells ran


class RunGate:
    """With several runs at once, the run observer hears one run at a time: the first to
    start while no run is heard, until it finishes; then another run in flight, from its
    next records (its start told again). A live plot never draws two runs as one."""

    def __init__(self, observer: RunObserver | None) -> None:
        self.observer = observer
        self.heard: RunKey | None = None
        self._started: dict[RunKey, tuple[int, RunSpec, float]] = {}

    def for_run(self, key: RunKey) -> RunObserver | None:
        """The observer the run at ``key`` reports to (None when nobody listens)."""
        return None if self.observer is None else _GatedObserver(self, self.observer, key)

    def started(self, key: RunKey, run_id: int, spec: RunSpec, expected_s: float) -> bool:
        """The run at ``key`` started; True when it is the one heard."""
        self._started[key] = (run_id, spec, expected_s)
        if self.heard is None:
            self.heard = key
        return self.heard == key

    def release(self, key: RunKey) -> None:
        """The run at ``key`` is over (whatever happened): another run in flight is heard."""
        self._started.pop(key, None)
        if self.heard != key:
            return
        self.heard = None
        if self._started and self.observer is not None:
            self.heard, (run_id, spec, expected_s) = next(iter(self._started.items()))
            self.observer.on_started(run_id, spec, expected_s)


class _GatedObserver:
    """One run's side of a ``RunGate``."""

    def __init__(self, gate: RunGate, observer: RunObserver, key: RunKey) -> None:
        self._gate, self._observer, self._key = gate, observer, key

    def _heard(self) -> bool:
        return self._gate.heard == self._key

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        if self._gate.started(self._key, run_id, spec, expected_s):
            self._observer.on_started(run_id, spec, expected_s)

    def on_line(self, line: Line) -> None:
        if self._heard():
            self._observer.on_line(line)

    def on_records(self, records: list[Record]) -> None:
        if self._heard():
            self._observer.on_records(records)

    def on_finished(self, run: Run) -> None:
        if self._heard():
            self._observer.on_finished(run)
        self._gate.release(self._key)

    def on_notice(self, text: str) -> None:
        if self._heard():
            self._observer.on_notice(text)
