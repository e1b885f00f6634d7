"""What a campaign is told and tells while it runs: its observer, its control (cancel,
pause, resume) and how it ended."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from pairbench.domain.campaign import CampaignStatus, Cell, RunKey
from pairbench.engine.campaign_run import RunOutcome


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
