"""A campaign as it goes: its progress (runs done of planned) and ETA, Pause / Resume /
Cancel (asked first; every finished run is kept), the matrix as a grid, the current run's
live plot and the notices (skips, retries, waits for the next pass)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Record
from pairbench.domain.campaign import Cell, RunKey
from pairbench.ui.campaign.campaign_follower import CampaignFollower
from pairbench.ui.campaign.cells_model import CellsModel
from pairbench.ui.campaign.live_texts import campaign_eta, campaign_note, campaign_title
from pairbench.ui.plotting.run_plots import RunPlots

TICK_MS = 1000
ROW_HEIGHT = 58
COLUMN_WIDTH = 150
NO_CAMPAIGN = "No campaign: build a plan and start it, or open one from the list"
HELP = (
    "A campaign runs a whole study: <b>pairs × tests × parameter axes × repeats</b>. In the "
    "plan, a parameter with comma-separated values (<tt>streams = 1, 4</tt>) is an axis: "
    "each value makes a cell of the grid (a row per pair, a column per test and axis "
    "values). The cells, runs and estimated duration show under the plan as you edit it."
    "<br><br>Rounds are <b>interleaved</b> by default (each round visits every cell once, "
    "shuffled with the stored seed); a cell repeats from its minimum until its CV target or "
    "its maximum. Here you see each cell's n, mean ± 95 % CI and CV, the run in flight, "
    "and Pause / Resume / Cancel (every finished run is kept)."
    "<br><br>Campaigns run by the command line (<tt>pairbench campaign run PLAN --detach</tt>, "
    "or under systemd) are followed from the <b>Campaigns</b> list; stopped ones resume there."
)


def _set_text(label: QLabel, text: str) -> None:
    """Only a text that changed (a label's new text lays the tab out again)."""
    if label.text() != text:
        label.setText(text)
    if label.isHidden() == bool(text):  # an empty line takes no room
        label.setVisible(bool(text))


class CampaignLiveView(QWidget):
    """Follows one ``CampaignFollower`` at a time (``bind``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("campaign_live")
        self.follower: CampaignFollower | None = None
        self.confirm_box: QMessageBox | None = None
        self.title_label = QLabel(NO_CAMPAIGN)
        font = QFont(self.title_label.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title_label.setFont(font)
        self.title_label.setWordWrap(True)
        self.note_label = QLabel("")
        self.note_label.setObjectName("campaign_note")
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet("color: #3a5f8f;")
        self.bar = QProgressBar()
        self.bar.setObjectName("campaign_progress")
        # No text in the bar: a progress bar with text repaints at once on every value (the
        # count is in the line below it).
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(14)
        self.eta_label = QLabel("")
        self.eta_label.setObjectName("campaign_eta")
        for label in (self.eta_label, self.note_label):  # new text: no relayout of the tab
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setObjectName("campaign_pause")
        self.pause_button.setToolTip("Start no new run; the run in flight finishes")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("campaign_go_on")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("campaign_cancel")
        self.cancel_button.setToolTip(
            "Stop the campaign: the run in flight is stored cancelled, every finished run is "
            "kept, and the campaign can be resumed later"
        )
        self.model = CellsModel()
        self.grid = QTableView()
        self.grid.setObjectName("campaign_grid")
        self.grid.setModel(self.model)
        self.grid.setWordWrap(False)  # the texts have their own lines: no layout to find
        self.grid.setSelectionMode(QTableView.SelectionMode.NoSelection)
        self.grid.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.grid.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.grid.horizontalHeader().setDefaultSectionSize(COLUMN_WIDTH)
        self.grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.model.modelReset.connect(self._fit_columns)
        self.run_label = QLabel("")
        self.run_label.setObjectName("campaign_run")
        self.plots_holder = QWidget()
        self._plots_layout = QVBoxLayout(self.plots_holder)
        self._plots_layout.setContentsMargins(0, 0, 0, 0)
        self.plots: RunPlots | None = None
        self.notices = QPlainTextEdit()
        self.notices.setObjectName("campaign_notices")
        self.notices.setReadOnly(True)
        self.notices.setMaximumBlockCount(500)
        self.notices.setPlaceholderText("Notices: skips, retries, waits for the next pass")
        self.notices.setMinimumWidth(220)

        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.bar, 1)
        head.addWidget(self.pause_button)
        head.addWidget(self.resume_button)
        head.addWidget(self.cancel_button)
        run_side = QWidget()
        run_layout = QVBoxLayout(run_side)
        run_layout.setContentsMargins(0, 0, 0, 0)
        run_layout.addWidget(self.run_label)
        run_layout.addWidget(self.plots_holder, 1)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.setObjectName("campaign_lower_split")
        lower.addWidget(run_side)
        lower.addWidget(self.notices)
        lower.setStretchFactor(0, 3)
        lower.setStretchFactor(1, 1)
        lower.setSizes([600, 240])
        lower.setChildrenCollapsible(False)
        split = self.split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("campaign_live_split")
        split.addWidget(self.grid)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.title_label)
        layout.addWidget(self.note_label)
        layout.addLayout(head)
        layout.addWidget(self.eta_label)
        self.help_label = QLabel(HELP)
        self.help_label.setObjectName("campaign_help")
        self.help_label.setWordWrap(True)
        self.help_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.help_label.setStyleSheet("color: #444; padding: 12px 4px;")
        layout.addWidget(split, 1)
        layout.addWidget(self.help_label, 1)

        self.pause_button.clicked.connect(self._pause)
        self.resume_button.clicked.connect(self._go_on)
        self.cancel_button.clicked.connect(self.ask_cancel)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.update_view)
        self._new_plots()
        self.bind(None)

    # -- following ---------------------------------------------------------------------------

    def bind(self, follower: CampaignFollower | None) -> None:
        old = self.follower
        if old is not None:
            old.changed.disconnect(self.update_view)
            old.shownLoaded.disconnect(self._show_cells)
            old.runStarted.disconnect(self._run_started)
            old.runBegan.disconnect(self._new_plots)
            old.records.disconnect(self._records)
            old.notice.disconnect(self.notices.appendPlainText)
        self.follower = follower
        self.notices.clear()
        self.model.set_shown(None)
        self._new_plots()
        _set_text(self.run_label, "")
        if follower is not None:
            follower.changed.connect(self.update_view)
            follower.shownLoaded.connect(self._show_cells)
            follower.runStarted.connect(self._run_started)
            follower.runBegan.connect(self._new_plots)
            follower.records.connect(self._records)
            follower.notice.connect(self.notices.appendPlainText)
            for text in follower.notices:
                self.notices.appendPlainText(text)
            self._show_cells()
            self._timer.start()
        else:
            self._timer.stop()
        self.update_view()

    def _show_cells(self) -> None:
        follower = self.follower
        if follower is not None:
            self.model.set_shown(follower.shown, follower.in_flight)

    def _fit_columns(self) -> None:
        """Columns as wide as their titles; the grid as tall as its rows (up to 60 %), the
        rest for the live plot."""
        header = self.grid.horizontalHeader()
        metrics = header.fontMetrics()
        for column, name in enumerate(self.model.columns):
            header.resizeSection(column, max(COLUMN_WIDTH, metrics.horizontalAdvance(name) + 24))
        total = sum(self.split.sizes())
        if total <= 0 or not self.model.pairs:
            return
        wanted = (
            header.sizeHint().height()
            + ROW_HEIGHT * len(self.model.pairs)
            + self.grid.horizontalScrollBar().sizeHint().height()
            + 2 * self.grid.frameWidth()
            + 8
        )
        grid = min(wanted, int(total * 0.6))
        self.split.setSizes([grid, total - grid])

    def _run_started(self, key: RunKey, cell: Cell) -> None:
        follower = self.follower
        if follower is None:
            return
        self._show_cells()
        attempt = f", attempt {key.attempt}" if key.attempt > 1 else ""
        _set_text(
            self.run_label,
            f"<b>Running:</b> {cell.title} — pass {key.occurrence + 1}, round {key.round}{attempt}",
        )

    def _records(self, records: list[Record]) -> None:
        follower = self.follower
        if self.plots is not None and follower is not None and len(follower.in_flight) <= 1:
            self.plots.add_records(records)

    def _new_plots(self) -> None:
        """A fresh live plot for the run that began (the previous run's stays until then:
        a run that fails before it starts leaves the last plot in view)."""
        if self.plots is not None:
            self._plots_layout.removeWidget(self.plots)
            self.plots.timer.stop()
            self.plots.deleteLater()
        self.plots = RunPlots()
        self.plots.follow_bar.hint.hide()  # the run tab says it; here the room goes to the notices
        self._plots_layout.addWidget(self.plots)

    # -- the header --------------------------------------------------------------------------

    def update_view(self) -> None:
        follower = self.follower
        active = follower is not None and follower.active
        for button in (self.pause_button, self.resume_button, self.cancel_button):
            button.setVisible(active)
        self.bar.setVisible(follower is not None)
        self.split.setVisible(follower is not None)
        self.help_label.setVisible(follower is None)
        if follower is None:
            _set_text(self.title_label, NO_CAMPAIGN)
            _set_text(self.note_label, "")
            _set_text(self.eta_label, "")
            return
        self.pause_button.setEnabled(active and not follower.pausing and not follower.cancelling)
        self.resume_button.setEnabled(active and follower.pausing and not follower.cancelling)
        self.cancel_button.setEnabled(active and not follower.cancelling)
        shown = follower.shown
        if shown is not None:
            self.bar.setRange(0, max(1, shown.runs_planned))
            self.bar.setValue(min(shown.runs_done, shown.runs_planned))
        _set_text(self.title_label, campaign_title(follower))
        _set_text(self.note_label, campaign_note(follower))
        _set_text(self.eta_label, campaign_eta(follower))
        if not follower.in_flight and (follower.outcome is not None or follower.error is not None):
            _set_text(self.run_label, "")

    # -- controls ----------------------------------------------------------------------------

    def _pause(self) -> None:
        if self.follower is not None:
            self.follower.pause()

    def _go_on(self) -> None:
        if self.follower is not None:
            self.follower.go_on()

    def ask_cancel(self) -> None:
        """Ask first (a window-modal box, not blocking the event loop); Yes cancels."""
        follower = self.follower
        if follower is None or not follower.active:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Cancel the campaign?",
            "Cancel the campaign? The run in flight is stopped and stored as cancelled; every "
            "finished run is kept, and the campaign can be resumed later from the list.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        yes = box.button(QMessageBox.StandardButton.Yes)
        if yes is not None:
            yes.clicked.connect(follower.cancel)
        self.confirm_box = box
        box.open()
