"""One run as the GUI follows it: its phase, progress and the bridge's signals, relayed.

A ``RunController`` is created (on the GUI thread) with the run's signals and connects to them
before the bridge submits the run, so nothing the engine emits is missed; views created later
(the run's tab, the panel's progress) subscribe to the controller.
"""

from __future__ import annotations

import enum
import time

from PySide6.QtCore import QObject, Signal, Slot

from pairbench.domain import HostPair, Line, Run, RunSpec, RunStatus
from pairbench.domain.diagnosis import Diagnosis, from_payload
from pairbench.ui.bridge import RunHandle, RunSignals


class RunPhase(enum.Enum):
    """Where a run stands, as the GUI sees it."""

    CONNECTING = "connecting"  # submitted: validating, connecting, probing the tool
    RUNNING = "running"
    CANCELLING = "cancelling"
    FINISHED = "finished"  # stored with a final status (see ``run.status``)
    FAILED = "failed"  # could not start; nothing stored (see ``error``)

    @property
    def active(self) -> bool:
        return self in (RunPhase.CONNECTING, RunPhase.RUNNING, RunPhase.CANCELLING)


def _duration_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RunController(QObject):
    """Relays a run's signals and keeps its state for the views."""

    started = Signal()  # the run is stored and running: run_id, expected_s are known
    records = Signal(object)  # list[Record]
    line = Signal(object)  # Line
    finished = Signal(object)  # Run, final
    failed = Signal(str)  # could not start
    changed = Signal()  # phase changed
    telemetry = Signal(object)  # list[Record] of host telemetry
    diagnosed = Signal(object)  # Diagnosis: what limited the run (before ``finished``)

    def __init__(
        self,
        signals: RunSignals,
        pair: HostPair,
        spec: RunSpec,
        parent: QObject | None = None,
    ) -> None:
        """Connect to ``signals`` now; set ``handle`` once the bridge has submitted the run."""
        super().__init__(parent)
        self.handle: RunHandle | None = None
        self.pair = pair
        self.spec = spec
        self.phase = RunPhase.CONNECTING
        self.run_id: int | None = None
        self.expected_s = 0.0
        self.submitted_at = time.monotonic()
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.run: Run | None = None
        self.error: str | None = None
        self.failure: object = None  # the engine's error object when the run could not start
        self.records_received = 0
        self.notice: str | None = None  # the engine's latest word while running
        self.diagnosis: Diagnosis | None = None  # what limited the run, once it ended
        self.signals = signals
        signals.started.connect(self._on_started)
        signals.records.connect(self._on_records)
        signals.line.connect(self._on_line)
        signals.finished.connect(self._on_finished)
        signals.refused.connect(self._on_refused)
        signals.failed.connect(self._on_failed)
        signals.notice.connect(self._on_notice)
        signals.telemetry.connect(self.telemetry)
        signals.diagnosis.connect(self._on_diagnosis)

    # -- what views ask --------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.phase.active

    @property
    def title(self) -> str:
        number = f"#{self.run_id} " if self.run_id is not None else ""
        return f"{number}{self.spec.tool} · {self.pair.name}"

    def elapsed_s(self) -> float:
        if self.started_at is None:
            return 0.0
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return end - self.started_at

    def progress(self) -> float | None:
        """Fraction done (0..1), or None when unknown (connecting, no expected duration)."""
        if self.phase is RunPhase.FINISHED:
            return 1.0
        if self.started_at is None or self.expected_s <= 0:
            return None
        return min(self.elapsed_s() / self.expected_s, 0.99)

    def status_text(self) -> str:
        """One line for the progress label: phase, elapsed and remaining time."""
        if self.phase is RunPhase.CONNECTING:
            waited = time.monotonic() - self.submitted_at
            return f"Connecting to {self.pair.name} and checking {self.spec.tool}… {waited:.0f} s"
        if self.phase is RunPhase.FAILED:
            return "Could not start"
        elapsed = _duration_text(self.elapsed_s())
        if self.phase is RunPhase.FINISHED:
            status = self.run.status.value if self.run else "finished"
            return f"{status.capitalize()} after {elapsed}"
        if self.phase is RunPhase.CANCELLING:
            return f"Cancelling… (ran {elapsed})"
        notice = f" — {self.notice}" if self.notice else ""
        if self.expected_s > 0:
            remaining = _duration_text(max(0.0, self.expected_s - self.elapsed_s()))
            return f"Running: {elapsed} elapsed, {remaining} remaining{notice}"
        return f"Running: {elapsed} elapsed{notice}"

    # -- actions ---------------------------------------------------------------------------

    def cancel(self) -> None:
        """Ask the engine to stop the run (it is then stored as cancelled)."""
        if not self.active or self.handle is None:
            return
        self.handle.cancel()
        self._set_phase(RunPhase.CANCELLING)

    # -- engine signals (queued onto the GUI thread) -----------------------------------------

    @Slot(int, object, float)
    def _on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self.run_id = run_id
        self.spec = spec  # as resolved: every parameter with its default filled in
        self.expected_s = expected_s
        self.started_at = time.monotonic()
        if self.phase is RunPhase.CONNECTING:
            self.phase = RunPhase.RUNNING
        self.started.emit()
        self.changed.emit()

    @Slot(object)
    def _on_records(self, records: list[object]) -> None:
        self.records_received += len(records)
        self.records.emit(records)

    @Slot(object)
    def _on_line(self, line: Line) -> None:
        self.line.emit(line)

    @Slot(object)
    def _on_finished(self, run: Run) -> None:
        self.run = run
        self.ended_at = time.monotonic()
        self.error = run.error if run.status is not RunStatus.COMPLETED else None
        self.phase = RunPhase.FINISHED
        self.finished.emit(run)
        self.changed.emit()

    @Slot(object)
    def _on_diagnosis(self, payload: object) -> None:
        self.diagnosis = from_payload(payload if isinstance(payload, dict) else None)
        if self.diagnosis is not None:
            self.diagnosed.emit(self.diagnosis)

    @Slot(str)
    def _on_notice(self, text: str) -> None:
        self.notice = text
        self.changed.emit()

    @Slot(object)
    def _on_refused(self, error: object) -> None:
        self.failure = error

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.error = message
        self.ended_at = time.monotonic()
        self._set_phase(RunPhase.FAILED)
        self.failed.emit(message)

    def _set_phase(self, phase: RunPhase) -> None:
        if phase != self.phase:
            self.phase = phase
            self.changed.emit()
