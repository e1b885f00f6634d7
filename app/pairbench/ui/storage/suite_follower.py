"""One storage suite as the window follows it: started or resumed through the bridge on the
engine thread, its observers' callbacks relayed to the GUI thread as queued signals, and
what the views need (the finished jobs' figures, stage verdicts, progress, timing, cancel).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from PySide6.QtCore import QObject, Signal, Slot

from pairbench.analysis.storage_suite import StageProgress, jobs_total, suite_progress
from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.domain.failures import RunError, TargetHoldsDataError
from pairbench.domain.storage import JobKey, SuiteParams, SuiteStatus
from pairbench.services.library import Library, LibraryError
from pairbench.services.running import SecretPrompt
from pairbench.services.storage import SuiteOutcome, SuiteRequest, resume_suite, start_suite
from pairbench.services.storage_watch import (
    Figures,
    SuiteState,
    eta_seconds,
    job_figures,
    suite_state,
)
from pairbench.ui.bridge import EngineBridge, RunHandle, RunSignals
from pairbench.ui.followed import RecordsObserver, relay_outcome


class _Relay(QObject):
    """The suite's observers as signals (emitted on the engine thread, delivered queued)."""

    created = Signal(int, object)  # suite id, SuiteParams
    state = Signal(object)  # SuiteState: a resumed suite as stored
    jobStarted = Signal(object, str, int, int)  # JobKey, name, done, planned
    jobFinished = Signal(object, object)  # JobKey, Run
    round = Signal(object)  # StageProgress
    records = Signal(object)  # list[Record] of the job in flight
    finished = Signal(object)  # SuiteOutcome
    failed = Signal(str)  # could not start (nothing stored) or stopped by an error
    held = Signal(object)  # TargetHoldsDataError: the device holds data, not forced
    shown = Signal(object, object)  # SuiteState, SuiteOutcome: a stored suite, only shown


class _Observer(RecordsObserver):
    """A SuiteObserver and a RunObserver at once, re-emitting everything."""

    def __init__(self, relay: _Relay, signals: RunSignals) -> None:
        super().__init__(relay)
        self._relay = relay
        self._signals = signals

    # SuiteObserver
    def on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None:
        self._relay.jobStarted.emit(key, name, done, planned)

    def on_job_finished(self, key: JobKey, run: Run) -> None:
        self._relay.jobFinished.emit(key, run)

    def on_round(self, stage: StageProgress) -> None:
        self._relay.round.emit(stage)

    # RunObserver (the job's own run)
    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self._signals.started.emit(run_id, spec, expected_s)

    def on_notice(self, text: str) -> None:
        self._signals.notice.emit(text)

    def on_created(self, suite_id: int, params: SuiteParams) -> None:
        self._relay.created.emit(suite_id, params)


_SuiteCall = Callable[[Library, _Observer, asyncio.Event], Awaitable[SuiteOutcome]]


class SuiteFollower(QObject):
    """A suite started (``start``) or resumed (``resume``); the views listen to its signals."""

    created = Signal()  # the suite is stored and runs: suite_id and params are known
    stateLoaded = Signal()  # a resumed suite's stored jobs are in ``done``
    jobStarted = Signal()
    jobFinished = Signal(object)  # JobKey
    roundDone = Signal(object)  # StageProgress
    records = Signal(object)  # list[Record]
    finished = Signal(object)  # SuiteOutcome
    failed = Signal(str)
    held = Signal(object)  # TargetHoldsDataError: refused (nothing written), may be forced
    changed = Signal()

    def __init__(
        self,
        bridge: EngineBridge,
        secrets: SecretPrompt | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.secrets = secrets
        self.suite_id: int | None = None
        self.params: SuiteParams | None = None
        self.done: dict[JobKey, Figures] = {}
        self.stages: dict[int, StageProgress] = {}  # the latest verdict of each stage
        self.job_name = ""
        self.job_key: JobKey | None = None
        self.jobs_done = 0
        self.jobs_planned = 0
        self.job_started_at: float | None = None
        self.job_seconds: list[float] = []  # wall time of each timed (non-precondition) job
        self.outcome: SuiteOutcome | None = None
        self.error: str | None = None
        self.cancelling = False
        self._relay = _Relay()
        self.handle = RunHandle(bridge, RunSignals())
        relay = self._relay
        relay.created.connect(self._on_created)
        relay.state.connect(self._on_state)
        relay.jobStarted.connect(self._on_job_started)
        relay.jobFinished.connect(self._on_job_finished)
        relay.round.connect(self._on_round)
        relay.records.connect(self.records)
        relay.finished.connect(self._on_finished)
        relay.failed.connect(self._on_failed)
        relay.held.connect(self._on_held)
        relay.shown.connect(self._on_shown)
        self.viewing = False  # a stored suite shown (``show``), not run

    # -- starting --------------------------------------------------------------------------

    def start(self, request: SuiteRequest) -> None:
        """Check the target, store and run the suite (``services.storage.start_suite``)."""

        async def call(lib: Library, observer: _Observer, cancel: asyncio.Event) -> SuiteOutcome:
            return await start_suite(
                lib, request, observer=observer, run_observer=observer, cancel=cancel,
                secrets=self.secrets, on_created=observer.on_created,
            )  # fmt: skip

        self._submit(call)

    def resume(self, suite_id: int, *, force: bool = False) -> None:
        """Go on with a stopped suite; its stored jobs come first (``stateLoaded``).
        ``force``: although its device now holds a file system or partitions."""
        relay = self._relay

        async def call(lib: Library, observer: _Observer, cancel: asyncio.Event) -> SuiteOutcome:
            relay.state.emit(suite_state(lib, suite_id))
            return await resume_suite(
                lib, suite_id, observer=observer, run_observer=observer, cancel=cancel,
                secrets=self.secrets, on_resumed=observer.on_created, force=force,
            )  # fmt: skip

        self._submit(call)

    def show(self, suite_id: int) -> None:
        """Show a stored suite as it stands (its plots, progress and verdicts), running
        nothing: the Library's "Open" of a suite."""
        self.viewing = True
        relay = self._relay

        async def job(lib: Library) -> None:
            try:
                state = suite_state(lib, suite_id)
            except LibraryError as exc:
                relay.failed.emit(f"suite #{suite_id} cannot be shown: {exc}")
                return
            status = SuiteStatus(state.suite.status)
            outcome = SuiteOutcome(state.suite.id, status, state.progress, state.suite.error)
            relay.shown.emit(state, outcome)

        self.bridge.submit(job)

    def _submit(self, call: _SuiteCall) -> None:
        relay, handle = self._relay, self.handle
        observer = _Observer(relay, handle.signals)

        async def job(lib: Library) -> Run | None:
            await relay_outcome(
                call(lib, observer, handle.cancel_event),
                relay.finished,
                relay.failed,
                (RunError, ValueError, LibraryError),
                {TargetHoldsDataError: relay.held},
            )
            return None

        handle.future = self.bridge.submit(job)
        # Listed with the bridge's runs: closing the window asks first, then cancels it.
        self.bridge.runs.append(handle)

    # -- what views ask --------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.outcome is None and self.error is None

    def cancel(self) -> None:
        """Stop the suite: the job in flight is stored cancelled, finished jobs are kept."""
        if self.active and not self.cancelling:
            self.cancelling = True
            self.handle.cancel()
            self.changed.emit()

    def overhead_s(self) -> float | None:
        """The measured time per job beyond its round (None before a job was timed)."""
        if not self.job_seconds or self.params is None:
            return None
        return max(0.0, sum(self.job_seconds) / len(self.job_seconds) - self.params.round_seconds)

    def eta_s(self) -> float | None:
        """Seconds left if the stages end at their planned rounds (None: not known yet)."""
        if self.params is None or not self.jobs_planned:
            return None
        in_job = 0.0 if self.job_started_at is None else time.monotonic() - self.job_started_at
        return eta_seconds(
            self.jobs_planned - self.jobs_done,
            self.params.round_seconds,
            self.overhead_s() or 0.0,
            in_job,
        )

    # -- relayed signals (GUI thread) ------------------------------------------------------

    @Slot(int, object)
    def _on_created(self, suite_id: int, params: SuiteParams) -> None:
        self.suite_id, self.params = suite_id, params
        self.jobs_done, self.jobs_planned = jobs_total(
            params, suite_progress(params, self.done), self.done
        )
        self.created.emit()
        self.changed.emit()

    @Slot(object)
    def _on_state(self, state: SuiteState) -> None:
        self.suite_id, self.params = state.suite.id, state.params
        self.done = dict(state.done)
        self.stages = {stage.index: stage for stage in state.progress.stages if stage.values}
        self.jobs_done, self.jobs_planned = jobs_total(state.params, state.progress, self.done)
        self.stateLoaded.emit()
        self.changed.emit()

    @Slot(object, str, int, int)
    def _on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None:
        now = time.monotonic()
        previous = self.job_key
        if self.job_started_at is not None and previous is not None and not previous.precondition:
            self.job_seconds.append(now - self.job_started_at)
        self.job_key, self.job_name = key, name
        self.jobs_done, self.jobs_planned = done, planned
        self.job_started_at = now
        self.jobStarted.emit()
        self.changed.emit()

    @Slot(object, object)
    def _on_job_finished(self, key: JobKey, run: Run) -> None:
        figures = job_figures(run)
        if figures is not None:
            self.done[key] = figures
        if run.status is RunStatus.COMPLETED:
            self.jobs_done = max(self.jobs_done, len(self.done))
        self.jobFinished.emit(key)
        self.changed.emit()

    @Slot(object)
    def _on_round(self, stage: StageProgress) -> None:
        self.stages[stage.index] = stage
        self.roundDone.emit(stage)
        self.changed.emit()

    @Slot(object, object)
    def _on_shown(self, state: SuiteState, outcome: SuiteOutcome) -> None:
        self._on_state(state)
        self.outcome = outcome  # ended as stored: nothing runs
        self.stages.update({s.index: s for s in outcome.progress.stages if s.values})
        self.changed.emit()

    @Slot(object)
    def _on_finished(self, outcome: SuiteOutcome) -> None:
        self.outcome = outcome
        self.job_started_at = None
        self.stages.update({s.index: s for s in outcome.progress.stages if s.values})
        if self.params is not None:
            self.jobs_done, self.jobs_planned = jobs_total(self.params, outcome.progress, self.done)
        self.finished.emit(outcome)
        self.changed.emit()

    @Slot(object)
    def _on_held(self, refusal: TargetHoldsDataError) -> None:
        self.error = str(refusal)
        self.job_started_at = None
        self.held.emit(refusal)
        self.changed.emit()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.error = message
        self.job_started_at = None
        self.failed.emit(message)
        self.changed.emit()
