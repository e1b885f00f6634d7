"""A suite's progress: jobs done of planned, the stage, round and job under way, an ETA
(jobs left × round length plus the overhead measured per job), and Cancel."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from pairbench.analysis.storage_suite import StageProgress
from pairbench.domain.storage import SuiteStatus, stages_of
from pairbench.ui.storage.suite_follower import SuiteFollower

TICK_MS = 1000


def duration_text(seconds: float) -> str:
    """``1:02:03`` or ``2:03``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _verdict_word(stage: StageProgress) -> str:
    """``throughput 1m: steady at round 7`` or ``...: not steady in 25 rounds``."""
    reached = stage.verdict.reached_at
    if reached is not None:
        return f"{stage.stage.name}: steady at round {reached}"
    return f"{stage.stage.name}: not steady in {len(stage.values)} rounds"


class SuiteProgressBox(QWidget):
    """Shows one suite's progress (``bind`` another to follow it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.follower: SuiteFollower | None = None
        self.bar = QProgressBar()
        self.bar.setObjectName("storage_progress")
        self.bar.setFormat("%v of %m jobs")
        self.where_label = QLabel("")
        self.where_label.setObjectName("storage_where")
        self.where_label.setWordWrap(True)
        self.eta_label = QLabel("")
        self.eta_label.setObjectName("storage_eta")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("storage_cancel")
        self.cancel_button.setToolTip(
            "Stop the suite: the job running is stored cancelled, finished jobs are kept "
            "and the suite can be resumed"
        )
        self.cancel_button.clicked.connect(self._cancel)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.where_label)
        layout.addWidget(self.eta_label)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.update_view)
        self.bind(None)

    def bind(self, follower: SuiteFollower | None) -> None:
        if self.follower is not None:
            self.follower.changed.disconnect(self.update_view)
        self.follower = follower
        if follower is not None:
            follower.changed.connect(self.update_view)
        self.update_view()

    def update_view(self) -> None:
        follower = self.follower
        self.setVisible(follower is not None)
        if follower is None:
            self._timer.stop()
            return
        self.bar.setRange(0, max(1, follower.jobs_planned))
        self.bar.setValue(min(follower.jobs_done, follower.jobs_planned))
        self.where_label.setText(self.where_text(follower))
        self.eta_label.setText(self.eta_text(follower))
        self.cancel_button.setVisible(follower.active)
        self.cancel_button.setEnabled(follower.active and not follower.cancelling)
        if follower.active and not self._timer.isActive():
            self._timer.start()
        elif not follower.active:
            self._timer.stop()

    @staticmethod
    def where_text(follower: SuiteFollower) -> str:
        """The stage, round and job under way (or how the suite ended)."""
        number = f"Suite #{follower.suite_id}" if follower.suite_id is not None else "Suite"
        if follower.error is not None:
            return f"{number} could not go on."
        outcome = follower.outcome
        if outcome is not None:
            if outcome.status is SuiteStatus.COMPLETED:
                verdicts = "; ".join(_verdict_word(s) for s in outcome.progress.stages)
                return f"{number} completed: {follower.jobs_done} jobs. {verdicts}."
            status = outcome.status.value  # a failure's reason is in the panel's error line
            return f"{number} {status}: its finished jobs are kept; resume it from the list."
        key, params = follower.job_key, follower.params
        if follower.cancelling:
            return f"{number}: cancelling the job in flight…"
        if key is None or params is None:
            return f"{number}: checking the host and the target…"
        if key.precondition:
            where = f"preconditioning pass {key.round} of {params.precondition_passes}"
        else:
            stage = stages_of(params.test)[key.stage]
            where = f"{stage.name}: round {key.round}, job {key.job + 1} of {len(stage.jobs)}"
        return f"{number} — {where} ({follower.job_name.split(', ')[-1]})"

    @staticmethod
    def eta_text(follower: SuiteFollower) -> str:
        if not follower.active or follower.cancelling:
            return ""
        eta = follower.eta_s()
        if eta is None:
            return ""
        overhead = follower.overhead_s()
        measured = (
            f"; {overhead:.1f} s of overhead per job measured" if overhead is not None else ""
        )
        key = follower.job_key
        extra = " (preconditioning not counted)" if key is not None and key.precondition else ""
        return (
            f"About {duration_text(eta)} left if every stage is steady at its planned "
            f"round{extra}{measured}."
        )

    def _cancel(self) -> None:
        if self.follower is not None:
            self.follower.cancel()
