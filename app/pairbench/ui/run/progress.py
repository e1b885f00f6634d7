"""A run's progress: a bar, elapsed and remaining time, and its Cancel button."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from pairbench.ui.elided_label import ElidedLabel
from pairbench.ui.run.controller import RunController, RunPhase

TICK_MS = 250


class RunProgress(QWidget):
    """Shows one run's progress (the run can be changed with ``bind``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller: RunController | None = None
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(14)
        self.label = ElidedLabel()  # a long notice never widens the dock or the window
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancel_run")
        self.cancel_button.setToolTip("Stop the run; what was measured so far is kept")
        self.cancel_button.clicked.connect(self._cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.label, 3)
        layout.addWidget(self.cancel_button)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.update_view)
        self.bind(None)

    def bind(self, controller: RunController | None) -> None:
        """Follow ``controller`` (None: show nothing)."""
        if self.controller is not None:
            self.controller.changed.disconnect(self.update_view)
        self.controller = controller
        if controller is not None:
            controller.changed.connect(self.update_view)
        self.update_view()

    def update_view(self) -> None:
        controller = self.controller
        self.setVisible(controller is not None)
        if controller is None:
            self._timer.stop()
            return
        fraction = controller.progress()
        if fraction is None and controller.phase.active:
            self.bar.setRange(0, 0)  # busy
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(round((fraction or 0.0) * 1000))
        self.label.setText(controller.status_text())
        self.cancel_button.setEnabled(controller.phase in (RunPhase.CONNECTING, RunPhase.RUNNING))
        self.cancel_button.setVisible(controller.phase.active)
        if controller.phase.active:
            if not self._timer.isActive():
                self._timer.start()
        else:
            self._timer.stop()

    def _cancel(self) -> None:
        if self.controller is not None:
            self.controller.cancel()
