"""The matrix editor: the plan's form, Open…/Save… of the CLI's TOML files and the built-in
plans, and, as the user edits (debounced, checked on the engine thread), the number of cells
and runs and the estimated duration, or the plan's error in red; Start while it has none."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.campaign import Plan
from pairbench.services.campaign_plan import PlanError, plan_from_mapping, read_plan
from pairbench.services.campaign_plan_toml import plan_to_toml
from pairbench.services.campaign_plans import builtin_plans
from pairbench.services.campaigns import CampaignPreview, preview_plan
from pairbench.services.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.plan_form import PlanForm
from pairbench.ui.file_places import documents
from pairbench.ui.run.error_line import ErrorLine

DEBOUNCE_MS = 300
TOML_FILTER = "Campaign plans (*.toml);;All files (*)"


def duration_words(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 20 min``, ``2.5 days``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        hours, rest = divmod(round(seconds / 60), 60)
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    return f"{seconds / 86400:.1f} days"


def preview_text(preview: CampaignPreview) -> str:
    """``4 cells on 1 pair · 8 to 16 runs · about 1 min to 2 min``."""
    pairs = len({cell.pair for cell in preview.cells})
    cells = f"{len(preview.cells)} cell{'s' if len(preview.cells) != 1 else ''}"
    on = f"on {pairs} pair{'s' if pairs != 1 else ''}"
    if preview.runs_min == preview.runs_max:
        runs = f"{preview.runs_min:,} runs"
    else:
        runs = f"{preview.runs_min:,} to {preview.runs_max:,} runs"
    passes = f" in {preview.passes} passes" if preview.passes > 1 else ""
    low, high = duration_words(preview.seconds_min), duration_words(preview.seconds_max)
    took = f"about {low}" if low == high else f"about {low} to {high}"
    return f"{cells} {on} · {runs}{passes} · {took}"


class PlanEditor(QWidget):
    """Build, open, save and start a plan; ``startRequested(plan, text)`` on Start."""

    startRequested = Signal(object, str)  # Plan, its TOML text
    previewed = Signal()  # a preview (or an error) was shown

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.plan: Plan | None = None  # the plan as last checked, when it has no error
        self.preview: CampaignPreview | None = None
        self.error = ""
        self.path: Path | None = None
        self.busy = False  # a campaign runs: Start waits
        self._generation = 0
        self.form = PlanForm(bridge)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open a plan file (the TOML the CLI reads)")
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save the plan as a TOML file for `pairbench campaign run`")
        self.builtin_combo = QComboBox()
        self.builtin_combo.setObjectName("campaign_builtin")
        self.builtin_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.builtin_combo.setMinimumContentsLength(12)
        self._fill_builtins()
        self.preview_label = QLabel("")
        self.preview_label.setObjectName("campaign_preview")
        self.preview_label.setWordWrap(True)
        self.preview_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_line = ErrorLine()
        self.error_line.setObjectName("campaign_plan_error")
        self.start_button = QPushButton("Start campaign")
        self.start_button.setObjectName("campaign_start")
        self.start_button.setMinimumHeight(30)
        self.start_button.setEnabled(False)

        files = QHBoxLayout()
        files.setContentsMargins(0, 0, 0, 0)
        files.addWidget(self.open_button)
        files.addWidget(self.save_button)
        files.addWidget(self.builtin_combo, 1)
        scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = scroll.verticalScrollBar().sizeHint().width()
        scroll.setMinimumWidth(self.form.minimumSizeHint().width() + bar + 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(files)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.preview_label)
        layout.addWidget(self.error_line)
        layout.addWidget(self.start_button)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.check_now)
        self.form.changed.connect(self._edited)
        self.open_button.clicked.connect(self._choose_open)
        self.save_button.clicked.connect(self._choose_save)
        self.builtin_combo.activated.connect(self._builtin_chosen)
        self.start_button.clicked.connect(self._start)

    def start_editing(self) -> None:
        """Load the library's pairs and give a new plan a first test."""
        self.form.pairs.refresh()
        if not self.form.tests.boxes:
            self.form.tests.add_test()

    # -- checking as the user edits --------------------------------------------------------

    def _edited(self) -> None:
        self.plan = None
        self._update_start()
        self._debounce.start()

    def check_now(self) -> None:
        """Check the form and preview its plan on the engine thread (a newer edit wins)."""
        self._debounce.stop()
        self._generation += 1
        generation = self._generation
        try:
            mapping = self.form.mapping()
        except PlanError as exc:
            self._show(generation, None, str(exc))
            return

        async def job(library: Library) -> CampaignPreview:
            return preview_plan(library, plan_from_mapping(mapping))

        def done(preview: CampaignPreview) -> None:
            if shiboken6.isValid(self):
                self._show(generation, preview, "")

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                text = str(error) if isinstance(error, PlanError) else f"{error}"
                self._show(generation, None, text or type(error).__name__)

        self.bridge.call(job, done, failed)

    def _show(self, generation: int, preview: CampaignPreview | None, error: str) -> None:
        if generation != self._generation:
            return  # an older edit's answer
        self.preview, self.error = preview, error
        self.plan = preview.plan if preview is not None else None
        if preview is not None:
            warnings = "".join(f"<br>⚠ {w}" for w in preview.warnings)
            self.preview_label.setText(f"<b>{preview_text(preview)}</b>{warnings}")
            self.error_line.clear_error()
        else:
            self.preview_label.setText("")
            self.error_line.show_error(error)
        self._update_start()
        self.previewed.emit()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self._update_start()

    def _update_start(self) -> None:
        self.start_button.setEnabled(self.plan is not None and not self.busy)
        self.start_button.setToolTip(
            "A campaign is running: wait for it or cancel it first" if self.busy else ""
        )

    def _start(self) -> None:
        if self.plan is not None and not self.busy:
            self.startRequested.emit(self.plan, plan_to_toml(self.plan))

    # -- files -----------------------------------------------------------------------------

    def open_file(self, path: Path) -> bool:
        """Show the plan of a TOML file; its error in red otherwise."""
        try:
            plan, _text = read_plan(path)
        except PlanError as exc:
            self.error_line.show_error(str(exc))
            return False
        self.path = path
        self.form.set_plan(plan)
        self.check_now()
        return True

    def save_file(self, path: Path) -> bool:
        """Write the plan as the CLI's TOML file; False (and the error shown) when the plan
        has an error or the file cannot be written."""
        try:
            plan = plan_from_mapping(self.form.mapping())
            path.write_text(plan_to_toml(plan), encoding="utf-8")
        except PlanError as exc:
            self.error_line.show_error(f"Not saved: {exc}")
            return False
        except OSError as exc:
            self.error_line.show_error(f"Not saved: cannot write {path}: {exc.strerror}")
            return False
        self.path = path
        return True

    def _choose_open(self) -> None:
        start = str(self.path.parent) if self.path else str(documents())
        name, _ = QFileDialog.getOpenFileName(self, "Open a campaign plan", start, TOML_FILTER)
        if name:
            self.open_file(Path(name))

    def _choose_save(self) -> None:
        name = f"{self.form.name_edit.text() or 'plan'}.toml"
        start = str(self.path) if self.path else str(documents() / name)
        name, _ = QFileDialog.getSaveFileName(self, "Save the campaign plan", start, TOML_FILTER)
        if name:
            self.save_file(Path(name))

    def _fill_builtins(self) -> None:
        plans = builtin_plans()
        self.builtin_combo.addItem("Built-in plans…" if plans else "No built-in plans", None)
        for plan in plans:
            self.builtin_combo.addItem(plan.title or plan.name, str(plan.path))
            index = self.builtin_combo.count() - 1
            self.builtin_combo.setItemData(
                index, plan.source or plan.name, Qt.ItemDataRole.ToolTipRole
            )
        self.builtin_combo.setEnabled(bool(plans))

    def _builtin_chosen(self, index: int) -> None:
        path = self.builtin_combo.itemData(index)
        self.builtin_combo.setCurrentIndex(0)
        if path:
            self.open_file(Path(str(path)))
