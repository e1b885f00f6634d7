"""The storage suite's tab: the form and Start (with a device's typed confirmation), the
stopped suites to resume, and the live view of the suite under way — its progress and ETA,
the job in flight, the convergence plot and the measurement window with its verdict.

A request that cannot run is said in the panel's error line (never a traceback); a resumed
suite's plots are rebuilt from its stored jobs before its next job starts.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from pairbench.analysis.storage_suite import StageProgress
from pairbench.domain.failures import TargetHoldsDataError
from pairbench.domain.storage import SuiteStatus
from pairbench.services.running import SecretPrompt
from pairbench.services.storage import SuiteOutcome, check_request
from pairbench.services.storage_watch import SuiteRow, convergence_lines, figure_family
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.run.error_line import ErrorLine
from pairbench.ui.storage.convergence_plot import ConvergencePlot
from pairbench.ui.storage.device_confirm import DeviceConfirmDialog
from pairbench.ui.storage.job_live import JobLive
from pairbench.ui.storage.progress_box import SuiteProgressBox
from pairbench.ui.storage.suite_follower import SuiteFollower
from pairbench.ui.storage.suite_form import SuiteForm
from pairbench.ui.storage.suites_list import InterruptedBar, SuitesList
from pairbench.ui.storage.window_plot import WindowPlot


class StoragePanel(QWidget):
    """Start, follow, cancel and resume storage suites (one at a time)."""

    suiteFinished = Signal(object)  # SuiteOutcome: the suite stopped or completed

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        secrets: SecretPrompt | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("storage_panel")
        self.bridge = bridge
        self.secrets = secrets
        self.follower: SuiteFollower | None = None
        self.confirm_dialog: DeviceConfirmDialog | None = None
        self._offered = False  # interrupted suites are offered once, at start-up

        self.interrupted_bar = InterruptedBar()
        self.form = SuiteForm(bridge)
        self.start_button = QPushButton("Start suite")
        self.start_button.setObjectName("storage_start")
        self.start_button.setMinimumHeight(32)
        self.error_line = ErrorLine()
        self.error_line.setObjectName("storage_error")
        self.suites = SuitesList(bridge)
        self.progress = SuiteProgressBox()
        self.job_live = JobLive()
        self.convergence = ConvergencePlot()
        self.window_plot = WindowPlot()

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.form)
        side_layout.addWidget(self.start_button)
        side_layout.addWidget(self.error_line)
        side_layout.addWidget(self.suites)
        side_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(340)

        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.setObjectName("storage_plots_split")
        plots.addWidget(self.convergence)
        plots.addWidget(self.window_plot)
        plots.setChildrenCollapsible(False)
        live = QWidget()
        live_layout = QVBoxLayout(live)
        live_layout.setContentsMargins(4, 0, 0, 0)
        live_layout.addWidget(self.progress)
        live_layout.addWidget(self.job_live, 1)
        live_layout.addWidget(plots, 3)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("storage_split")
        split.addWidget(scroll)
        split.addWidget(live)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.interrupted_bar)
        layout.addWidget(split, 1)

        self.start_button.clicked.connect(self.start)
        self.form.hostsFailed.connect(self.show_error)
        self.form.changed.connect(self.error_line.clear_error)
        self.suites.resumeRequested.connect(self.resume)
        self.suites.loaded.connect(self._suites_loaded)
        self.suites.failed.connect(self.show_error)
        self.interrupted_bar.resumeRequested.connect(self.resume)
        self.form.refresh_hosts()
        self.suites.refresh()

    # -- starting and resuming ---------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.follower is not None and self.follower.active

    def start(self) -> SuiteFollower | None:
        """Start a suite with the form's values; a device first asks for its name typed
        again (the suite then starts when the dialog is accepted)."""
        if self._refuse_when_busy():
            return None
        checked = self.form.request()
        if isinstance(checked, str):
            self.show_error(checked)
            return None
        if self.form.on_device:
            dialog = DeviceConfirmDialog(checked.target, checked.host, self)
            dialog.accepted.connect(lambda: self.launch(dialog.typed()))
            dialog.rejected.connect(
                lambda: self.show_error(
                    f"Not started: {checked.target} was not confirmed (nothing was written)."
                )
            )
            self.confirm_dialog = dialog
            dialog.open()
            return None
        return self.launch("")

    def launch(self, confirm: str) -> SuiteFollower | None:
        """Check the request (``confirm``: the device's name as typed) and submit it."""
        if self._refuse_when_busy():
            return None
        request = self.form.request(confirm)
        if isinstance(request, str):
            self.show_error(request)
            return None
        try:
            check_request(request)
        except ValueError as exc:
            self.show_error(f"The suite cannot start: {exc}")
            return None
        follower = self._follow(SuiteFollower(self.bridge, self.secrets, self))
        follower.start(request)
        return follower

    def resume(self, suite_id: int, *, force: bool = False) -> SuiteFollower | None:
        """Go on with a stopped suite (its plots rebuilt from the stored jobs first); a device
        that now holds a file system or partitions asks first (``force`` once confirmed)."""
        if self._refuse_when_busy():
            return None
        self.interrupted_bar.hide()
        follower = self._follow(SuiteFollower(self.bridge, self.secrets, self))
        follower.suite_id = suite_id
        follower.resume(suite_id, force=force)
        return follower

    def open_suite(self, suite_id: int) -> SuiteFollower | None:
        """Show a stored suite (its convergence and measurement window, progress and
        verdicts) without running it; the suite running here stays in view instead."""
        follower = self.follower
        if follower is not None and follower.suite_id == suite_id:
            return follower
        if self.busy:
            self.show_error(
                f"A suite is running: suite #{suite_id} can be shown once it ends (or from "
                "the command line: pairbench storage show)."
            )
            return None
        follower = self._follow(SuiteFollower(self.bridge, self.secrets, self))
        follower.suite_id = suite_id
        follower.show(suite_id)
        return follower

    def cancel(self) -> None:
        if self.follower is not None:
            self.follower.cancel()

    def _refuse_when_busy(self) -> bool:
        if self.busy:
            self.show_error(
                "A suite is running: wait for it or cancel it first (two suites on one "
                "host would disturb each other's figures)."
            )
        return self.busy

    def _follow(self, follower: SuiteFollower) -> SuiteFollower:
        self.error_line.clear_error()
        self.follower = follower
        follower.created.connect(self._redraw)
        follower.stateLoaded.connect(self._redraw)
        follower.jobStarted.connect(self._job_started)
        follower.records.connect(self.job_live.add_records)
        follower.roundDone.connect(self._round_done)
        follower.finished.connect(self._finished)
        follower.failed.connect(self._failed)
        follower.held.connect(self._held)
        follower.changed.connect(self._update_buttons)
        self.progress.bind(follower)
        self.job_live.start_job("", "iops")
        self.convergence.show_lines(None, [])
        self.window_plot.set_stages({})
        self._update_buttons()
        return follower

    # -- following ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        follower = self.follower
        if follower is None or follower.params is None:
            return
        self.convergence.show_lines(
            follower.params, convergence_lines(follower.params, follower.done)
        )
        self.window_plot.set_stages(follower.stages)

    def _job_started(self) -> None:
        follower = self.follower
        if follower is not None and follower.params is not None:
            self.job_live.start_job(follower.job_name, figure_family(follower.params.test))

    def _round_done(self, stage: StageProgress) -> None:
        follower = self.follower
        if follower is None or follower.params is None:
            return
        self.convergence.show_lines(
            follower.params, convergence_lines(follower.params, follower.done)
        )
        self.window_plot.set_stages(follower.stages, show=stage.index)

    def _finished(self, outcome: SuiteOutcome) -> None:
        self._redraw()
        self.job_live.start_job("", "iops")
        if outcome.status is SuiteStatus.FAILED and outcome.error:
            self.show_error(f"Suite #{outcome.suite_id} stopped: {outcome.error}")
        self.suites.refresh()
        self.suiteFinished.emit(outcome)

    def _held(self, refusal: TargetHoldsDataError) -> None:
        """The device holds data the suite did not write: nothing was written. A resume asks
        for the device's name typed again, then resumes with force; a start says to tick
        Force."""
        found = " and ".join(refusal.held)
        follower = self.follower
        suite_id = follower.suite_id if follower is not None else None
        if suite_id is None:
            self.show_error(
                f"The suite could not start: {refusal.target} holds {found}; the suite would "
                "destroy it. Test another device, or tick Force if its data may go."
            )
            return
        self.show_error(
            f"Suite #{suite_id} was not resumed: {refusal.target} now holds {found} "
            "(nothing was written)."
        )
        dialog = DeviceConfirmDialog(
            refusal.target, refusal.host, self, resume_of=suite_id, held=refusal.held
        )
        dialog.accepted.connect(lambda: self.resume(suite_id, force=True))
        self.confirm_dialog = dialog
        dialog.open()

    def _failed(self, message: str) -> None:
        follower = self.follower
        if follower is not None and follower.viewing:
            self.show_error(message[:1].upper() + message[1:])
            return
        self.show_error(f"The suite could not start: {message}")
        self.suites.refresh()

    def _update_buttons(self) -> None:
        self.start_button.setEnabled(not self.busy)
        self.suites.set_busy(self.busy)

    def _suites_loaded(self, rows: list[SuiteRow]) -> None:
        """At the first load (the window's start), offer to resume interrupted suites."""
        if not self._offered and not self.busy:
            self.interrupted_bar.offer([row for row in rows if row.interrupted])
        self._offered = True

    # -- messages ----------------------------------------------------------------------------

    def show_error(self, text: str) -> None:
        self.error_line.show_error(text)

    def error_text(self) -> str:
        """The error shown, or "" (for tests and the window)."""
        return "" if self.error_line.isHidden() else self.error_line.text()
