"""One campaign as the window follows it: started or resumed here through the bridge (its
observers relayed to the GUI thread as queued signals; pause, resume and cancel set its
control's events on the engine's loop), or run by another process and polled read-only.
After each run, the cells are read again with ``show_campaign`` on the engine thread (one
read at a time: a read asked for while one is under way is done once it ends)."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Awaitable, Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from pairbench.domain import Run, RunSpec
from pairbench.domain.campaign import Cell, Plan, RunKey
from pairbench.domain.failures import RunError
from pairbench.services.campaign_plan import PlanError
from pairbench.services.campaigns import (
    CampaignControl,
    CampaignOutcome,
    CampaignShown,
    RunOutcome,
    resume_campaign,
    show_campaign,
    start_campaign,
)
from pairbench.services.library import Library, LibraryError
from pairbench.services.running import SecretPrompt
from pairbench.ui.bridge import EngineBridge, RunHandle, RunSignals
from pairbench.ui.followed import RecordsObserver, relay_outcome

WATCH_INTERVAL_MS = 2000
# Reads of the cells start at least this far apart (later ones wait, never dropped): runs
# take longer than this, so each run still gets its own read, and a burst of short runs or
# failures cannot keep the engine thread (and the GIL) busy reading.
MIN_READ_S = 1.0
MAX_NOTICES = 200


class _Relay(QObject):
    """The campaign's observers as signals (emitted on the engine thread, delivered queued)."""

    created = Signal(int)
    runStarted = Signal(object, object)  # RunKey, Cell
    runFinished = Signal(object, object, object)  # RunKey, Cell, RunOutcome
    runBegan = Signal(int, object)  # run id, RunSpec (the run itself started)
    records = Signal(object)  # list[Record] of the run in flight
    notice = Signal(str)
    waiting = Signal(float, str)
    finished = Signal(object)  # CampaignOutcome
    failed = Signal(str)


class _Observer(RecordsObserver):
    """A CampaignObserver and a RunObserver at once, re-emitting everything."""

    def __init__(self, relay: _Relay) -> None:
        super().__init__(relay)
        self._relay = relay

    def on_run_started(self, key: RunKey, cell: Cell) -> None:
        self._relay.runStarted.emit(key, cell)

    def on_run_finished(self, key: RunKey, cell: Cell, outcome: RunOutcome) -> None:
        self._relay.runFinished.emit(key, cell, outcome)

    def on_notice(self, text: str) -> None:
        self._relay.notice.emit(text)

    def on_waiting(self, seconds: float, why: str) -> None:
        self._relay.waiting.emit(seconds, why)

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self._relay.runBegan.emit(run_id, spec)

    def on_created(self, campaign_id: int) -> None:
        self._relay.created.emit(campaign_id)


_CampaignCall = Callable[[Library, _Observer, CampaignControl], Awaitable[CampaignOutcome]]


class CampaignFollower(QObject):
    """A campaign started (``start``), resumed (``resume``), watched in another process
    (``watch``) or shown as stored (``load``); the views listen to ``changed``."""

    changed = Signal()
    shownLoaded = Signal()  # ``shown`` was read again
    runStarted = Signal(object, object)  # RunKey, Cell
    runBegan = Signal()  # the run in flight started: its records follow
    records = Signal(object)  # list[Record]
    notice = Signal(str)
    finished = Signal(object)  # CampaignOutcome
    failed = Signal(str)

    def __init__(
        self,
        bridge: EngineBridge,
        secrets: SecretPrompt | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.secrets = secrets
        self.campaign_id: int | None = None
        self.shown: CampaignShown | None = None
        self.own = False  # run by this window (else read-only)
        self.owner_pid: int | None = None  # watched: the process running it
        self.in_flight: dict[int, tuple[RunKey, Cell]] = {}  # cell index → its run
        self.outcome: CampaignOutcome | None = None
        self.error: str | None = None
        self.pausing = False  # pause asked: takes effect after the runs in flight
        self.paused = False  # the engine said it is paused
        self.cancelling = False
        self.waiting_until: float | None = None
        self.waiting_why = ""
        self.notices: list[str] = []
        self.refreshes = 0  # reads of the cells finished (for tests and benchmarks)
        self.control = CampaignControl()
        self.handle = RunHandle(bridge, RunSignals())
        self.handle.cancel_event = self.control.cancel  # closing the window cancels it
        self._reading = False
        self._read_again = False
        self._last_read = -MIN_READ_S
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self.refresh)
        self._poll = QTimer(self)
        self._poll.setInterval(WATCH_INTERVAL_MS)
        self._poll.timeout.connect(self.refresh)
        relay = self._relay = _Relay()
        relay.created.connect(self._on_created)
        relay.runStarted.connect(self._on_run_started)
        relay.runFinished.connect(self._on_run_finished)
        relay.runBegan.connect(lambda _id, _spec: self.runBegan.emit())
        relay.records.connect(self.records)
        relay.notice.connect(self._on_notice)
        relay.waiting.connect(self._on_waiting)
        relay.finished.connect(self._on_finished)
        relay.failed.connect(self._on_failed)

    # -- starting, resuming, watching --------------------------------------------------------

    def start(self, plan: Plan, text: str) -> None:
        """Store and run a campaign of ``plan`` (``services.campaigns.start_campaign``)."""

        async def call(
            lib: Library, observer: _Observer, control: CampaignControl
        ) -> CampaignOutcome:
            return await start_campaign(
                lib, plan, text, observer=observer, run_observer=observer, control=control,
                secrets=self.secrets, on_created=observer.on_created,
            )  # fmt: skip

        self._submit(call)

    def resume(self, campaign_id: int) -> None:
        """Go on with a stopped campaign from its next run."""
        self.campaign_id = campaign_id
        self.refresh()

        async def call(
            lib: Library, observer: _Observer, control: CampaignControl
        ) -> CampaignOutcome:
            return await resume_campaign(
                lib, campaign_id, observer=observer, run_observer=observer, control=control,
                secrets=self.secrets,
            )  # fmt: skip

        self._submit(call)

    def watch(self, campaign_id: int, pid: int | None) -> None:
        """Follow a campaign another process runs: read it every ``WATCH_INTERVAL_MS``."""
        self.campaign_id, self.owner_pid = campaign_id, pid
        self._poll.start()
        self.refresh()
        self.changed.emit()

    def load(self, campaign_id: int) -> None:
        """Show a stored campaign as it is (read once)."""
        self.campaign_id = campaign_id
        self.refresh()

    def _submit(self, call: _CampaignCall) -> None:
        self.own = True
        relay, control = self._relay, self.control
        observer = _Observer(relay)

        async def job(lib: Library) -> Run | None:
            known = (RunError, PlanError, ValueError, LibraryError)
            await relay_outcome(call(lib, observer, control), relay.finished, relay.failed, known)
            return None

        self.handle.future = self.bridge.submit(job)
        self.bridge.runs.append(self.handle)  # closing the window asks, then cancels it
        self.changed.emit()

    # -- what views ask ----------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """Run by this window and not ended."""
        return self.own and self.outcome is None and self.error is None

    @property
    def watching(self) -> bool:
        return self._poll.isActive()

    def pause(self) -> None:
        """Start no new run (the runs in flight finish); ``go_on`` resumes."""
        if self.active and not self.pausing:
            self.pausing = True
            self.bridge.loop.call_soon_threadsafe(self.control.going.clear)
            self.changed.emit()

    def go_on(self) -> None:
        if self.active and self.pausing:
            self.pausing = self.paused = False
            self.bridge.loop.call_soon_threadsafe(self.control.going.set)
            self.changed.emit()

    def cancel(self) -> None:
        """Stop: the run in flight is stored cancelled, every finished run is kept."""
        if self.active and not self.cancelling:
            self.cancelling = True
            self.bridge.loop.call_soon_threadsafe(self.control.cancel.set)
            self.changed.emit()

    def stop_watching(self) -> None:
        self._poll.stop()

    def seconds_per_run(self) -> float | None:
        """The median time between the starts of successive runs (None before two)."""
        shown = self.shown
        if shown is None or len(shown.attempts) < 2:
            return None
        starts = sorted(a.at for a in shown.attempts)
        gaps = [b - a for a, b in itertools.pairwise(starts) if b > a]
        return statistics.median(gaps) if gaps else None

    def eta_s(self) -> float | None:
        """Seconds left at the measured pace for the runs planned (None: not known yet)."""
        shown, per_run = self.shown, self.seconds_per_run()
        if shown is None or per_run is None:
            return None
        return max(0, shown.runs_planned - shown.runs_done) * per_run

    # -- reading the cells -------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the campaign's cells again on the engine thread: one read at a time, at
        most one each ``MIN_READ_S`` (a read asked for sooner is done then)."""
        campaign_id = self.campaign_id
        if campaign_id is None:
            return
        if self._reading:
            self._read_again = True
            return
        wait = self._last_read + MIN_READ_S - time.monotonic()
        if wait > 0:
            if not self._later.isActive():
                self._later.start(int(wait * 1000) + 1)
            return
        self._reading = True
        self._last_read = time.monotonic()

        async def job(lib: Library) -> CampaignShown:
            return show_campaign(lib, campaign_id)

        def done(shown: CampaignShown) -> None:
            if shiboken6.isValid(self):
                self._read(shown)

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self._reading = False
                self._add_notice(f"could not read the campaign: {error}")

        self.bridge.call(job, done, failed)

    def _read(self, shown: CampaignShown) -> None:
        self._reading = False
        self.shown = shown
        self.refreshes += 1
        if self.watching and shown.campaign.status != "running":
            self._poll.stop()
            self._add_notice(f"the campaign ended: {shown.campaign.status}")
        self.shownLoaded.emit()
        self.changed.emit()
        if self._read_again:
            self._read_again = False
            self.refresh()

    # -- relayed signals (GUI thread) --------------------------------------------------------

    @Slot(int)
    def _on_created(self, campaign_id: int) -> None:
        self.campaign_id = campaign_id
        self.refresh()
        self.changed.emit()

    @Slot(object, object)
    def _on_run_started(self, key: RunKey, cell: Cell) -> None:
        self.in_flight[cell.index] = (key, cell)
        self.waiting_until = None
        self.runStarted.emit(key, cell)
        self.changed.emit()

    @Slot(object, object, object)
    def _on_run_finished(self, key: RunKey, cell: Cell, outcome: RunOutcome) -> None:
        self.in_flight.pop(cell.index, None)
        if outcome.status not in ("completed", "cancelled"):
            retry = "" if key.attempt > self.shown_retries() else " (to be retried)"
            self._add_notice(f"{cell.title}: run {outcome.status}{retry}: {outcome.error}")
        self.refresh()
        self.changed.emit()

    def shown_retries(self) -> int:
        return self.shown.plan.retry.retries if self.shown is not None else 0

    @Slot(str)
    def _on_notice(self, text: str) -> None:
        if text == "paused":
            self.paused = True
        self._add_notice(text)
        self.changed.emit()

    @Slot(float, str)
    def _on_waiting(self, seconds: float, why: str) -> None:
        self.waiting_until = time.time() + seconds
        self.waiting_why = why
        self._add_notice(f"waiting {seconds:.0f} s for the {why}")
        self.changed.emit()

    @Slot(object)
    def _on_finished(self, outcome: CampaignOutcome) -> None:
        self.outcome = outcome
        self.campaign_id = outcome.campaign_id
        self.in_flight.clear()
        self.waiting_until = None
        self.refresh()
        self.finished.emit(outcome)
        self.changed.emit()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.error = message
        self.in_flight.clear()
        self.waiting_until = None
        self.refresh()
        self.failed.emit(message)
        self.changed.emit()

    def _add_notice(self, text: str) -> None:
        stamped = f"{time.strftime('%H:%M:%S')}  {text}"
        self.notices.append(stamped)
        del self.notices[:-MAX_NOTICES]
        self.notice.emit(stamped)
