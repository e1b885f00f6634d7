"""Runs waiting their turn in the run panel: "Run N times" and "Add to queue" fill it; the
panel starts the next run when the last one has ended, after the pause; the user reorders,
removes, skips, stops and resumes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QPushButton,
    QWidget,
)

from pairbench.domain import HostPair, RunSpec
from pairbench.ui.run.controller import RunController

MAX_PAUSE_S = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class QueuedRun:
    """A run waiting its turn: the pair, the spec, and the probe's time after the step."""

    pair: HostPair
    spec: RunSpec
    after_step_s: float | None = None

    @property
    def title(self) -> str:
        label = f" — {self.spec.label}" if self.spec.label else ""
        return f"{self.spec.tool} on {self.pair.name}{label}"


Launch = Callable[[QueuedRun], RunController | None]


class RunQueue(QGroupBox):
    """The queue; ``launch`` starts one entry (None when it cannot start)."""

    progressed = Signal()  # an entry started or ended, or the queue changed

    def __init__(self, launch: Launch, parent: QWidget | None = None) -> None:
        super().__init__("Queue", parent)
        self.setObjectName("run_queue")
        self._launch = launch
        self.entries: list[QueuedRun] = []
        self.current: RunController | None = None
        self.done = 0
        self.failed = 0
        self.stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.start_next)
        self.pause_box = QDoubleSpinBox()
        self.pause_box.setRange(0.0, MAX_PAUSE_S)
        self.pause_box.setDecimals(1)
        self.pause_box.setSuffix(" s pause")
        self.pause_box.setToolTip("Between the end of a run and the start of the next")
        self.pause_box.setAccessibleName("Pause between queued runs")
        self.list = QListWidget()
        self.list.setAccessibleName("Queued runs")
        self.list.setMaximumHeight(110)
        self.status = QLabel()
        self.up_button = QPushButton("Up")
        self.down_button = QPushButton("Down")
        self.remove_button = QPushButton("Remove")
        self.skip_button = QPushButton("Skip next")
        self.stop_button = QPushButton("Stop queue")
        grid = QGridLayout(self)
        grid.addWidget(self.list, 0, 0, 4, 1)
        for row, button in enumerate((self.up_button, self.down_button, self.remove_button)):
            grid.addWidget(button, row, 1)
        grid.addWidget(self.skip_button, 0, 2)
        grid.addWidget(self.stop_button, 1, 2)
        grid.addWidget(self.pause_box, 2, 2)
        grid.addWidget(self.status, 4, 0, 1, 3)
        self.up_button.clicked.connect(lambda: self.move_entry(self.list.currentRow(), -1))
        self.down_button.clicked.connect(lambda: self.move_entry(self.list.currentRow(), 1))
        self.remove_button.clicked.connect(lambda: self.remove(self.list.currentRow()))
        self.skip_button.clicked.connect(lambda: self.remove(0))
        self.stop_button.clicked.connect(self.toggle_stop)
        self._show()

    # -- filling and editing ----------------------------------------------------------------

    def add(self, entries: list[QueuedRun]) -> None:
        """Queue these runs; start the first at once when nothing runs (and not stopped)."""
        self.entries += entries
        self._show()
        if not self.busy and not self.stopped:
            self.start_next()

    def move_entry(self, row: int, step: int) -> None:
        """Move the entry at ``row`` up (-1) or down (+1)."""
        target = row + step
        if 0 <= row < len(self.entries) and 0 <= target < len(self.entries):
            self.entries[row], self.entries[target] = self.entries[target], self.entries[row]
            self._show()
            self.list.setCurrentRow(target)

    def remove(self, row: int) -> None:
        """Drop the entry at ``row`` (row 0: skip the next run)."""
        if 0 <= row < len(self.entries):
            del self.entries[row]
            self._show()

    def toggle_stop(self) -> None:
        """Stop starting runs (the one running goes on), or go on."""
        self.stopped = not self.stopped
        if self.stopped:
            self._timer.stop()
        elif not self.busy:
            self.start_next()
        self._show()

    # -- running ----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A queued run is running, or the pause before the next one is counting."""
        running = self.current is not None and self.current.active
        return running or self._timer.isActive()

    def start_next(self) -> None:
        """Start the next entry (if any and not stopped)."""
        self._timer.stop()
        if self.stopped or not self.entries or (self.current and self.current.active):
            self._show()
            return
        entry = self.entries.pop(0)
        controller = self._launch(entry)
        if controller is None:  # refused before it started (the panel says why)
            self._failed()
            return
        self.current = controller
        controller.finished.connect(lambda _run: self._ended())
        controller.failed.connect(lambda _message: self._failed())
        self._show()

    def _failed(self) -> None:
        self.failed += 1
        self._ended(counted=False)

    def _ended(self, *, counted: bool = True) -> None:
        if counted:
            self.done += 1
        self.current = None
        if self.entries and not self.stopped:
            self._timer.start(int(self.pause_box.value() * 1000))
        self._show()

    def _show(self) -> None:
        self.list.clear()
        self.list.addItems([f"{i + 1}. {e.title}" for i, e in enumerate(self.entries)])
        self.stop_button.setText("Resume queue" if self.stopped else "Stop queue")
        for button in (self.up_button, self.down_button, self.remove_button, self.skip_button):
            button.setEnabled(bool(self.entries))
        parts = [f"{self.done} done"]
        if self.failed:
            parts.append(f"{self.failed} could not run")
        parts.append(f"{len(self.entries)} waiting")
        if self.current is not None and self.current.active:
            parts.append("one running")
        elif self._timer.isActive():
            parts.append(f"next in {self.pause_box.value():g} s")
        if self.stopped:
            parts.append("stopped")
        self.status.setText(", ".join(parts))
        self.setVisible(bool(self.entries) or self.busy or self.done + self.failed > 0)
        self.progressed.emit()
