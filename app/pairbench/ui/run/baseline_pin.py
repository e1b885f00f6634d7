"""A pinned baseline under a run's live curves: a stored run, or the median of a group of runs.

"Pin baseline…" lists the stored runs of the same tool (loaded on the engine thread), the
user picks one run or a group ("median of runs with label / pair / tag X"); the chosen runs'
series are loaded and, for a group, reduced to their pointwise median
(``analysis.compare.median_curve``), again on the engine thread. Each live plot that draws a
"sum" curve of a metric the baseline has then gets the baseline's curve of that metric under
it: a muted dashed pen, aligned at run start (stored times are seconds since the start), in
raw units on the plot's own axis scale, named "baseline: <pair> <label>" in the legend.
Plots that appear later get theirs as they appear. "Unpin" removes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.analysis.compare import Curve, median_curve
from pairbench.analysis.compare_runs import CompareError, RunInput, pick_series
from pairbench.analysis.stats import FloatArray
from pairbench.domain import Run, RunStatus
from pairbench.domain.timestamps import time_text
from pairbench.services.library import Library
from pairbench.services.run_browser import load_series
from pairbench.services.runs import RunFilter, find_runs, get_run
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.runs_model import key_result
from pairbench.ui.plotting.live_plot import LivePlot
from pairbench.ui.plotting.run_plots import RunPlots
from pairbench.ui.run.controller import RunController

BASELINE_COLOR = "#9e9e9e"
MAX_LISTED_RUNS = 500
GROUP_KINDS = ("label", "pair", "tag")


# -- the data (Qt-free; loaded on the engine thread) -------------------------------------------


@dataclass(frozen=True, slots=True)
class BaselineChoice:
    """What to pin: one run (``group`` empty) or the median of runs (``group`` names them)."""

    run_ids: tuple[int, ...]
    group: str = ""  # e.g. "label ad1", "pair oci-ad1", "tag zone=a"


@dataclass(frozen=True, slots=True)
class Baseline:
    """Curves to draw under a live run: metric → (t since run start in s, raw values)."""

    name: str  # legend text
    run_ids: tuple[int, ...]
    curves: Mapping[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)


def stored_runs(lib: Library, tool: str, exclude: int | None = None) -> list[Run]:
    """Finished runs of ``tool``, newest first (not ``exclude``, the live run itself)."""
    runs = find_runs(lib, RunFilter(tool=tool, limit=MAX_LISTED_RUNS + 1))
    return [r for r in runs if r.status is not RunStatus.RUNNING and r.id != exclude][
        :MAX_LISTED_RUNS
    ]


def load_baseline(lib: Library, choice: BaselineChoice) -> Baseline:
    """The chosen runs' series from the library, as one baseline (median for a group)."""
    items = [RunInput(get_run(lib, i), None, load_series(lib, i)) for i in choice.run_ids]
    return make_baseline(items, choice.group)


def make_baseline(items: Sequence[RunInput], group: str = "") -> Baseline:
    """One run's "sum" series per metric, or the pointwise median of several runs' series."""
    if not items:
        raise CompareError("no run to pin as a baseline")
    metrics = list(dict.fromkeys(s.metric for item in items for s in item.series))
    curves: dict[str, tuple[FloatArray, FloatArray]] = {}
    for metric in metrics:
        found = [(item, pick_series(item, metric)) for item in items]
        usable = [
            Curve(group, item.run.id, "", s.stream, np.asarray(s.t, float), np.asarray(s.v, float))
            for item, s in found
            if s is not None and len(s.t)
        ]
        if not usable:
            continue
        if len(items) == 1:
            curves[metric] = (usable[0].t, usable[0].v)
            continue
        try:
            curves[metric] = median_curve(usable)
        except CompareError:
            continue  # too short, or not overlapping: this metric has no baseline
    return Baseline(baseline_name(items, group), tuple(i.run.id for i in items), curves)


def baseline_name(items: Sequence[RunInput], group: str = "") -> str:
    """Legend text: "baseline: <pair> <label>" (a group: its pairs, what it is, how many)."""
    if not group and len(items) == 1:
        run = items[0].run
        return f"baseline: {run.spec.pair} {run.label or f'#{run.id}'}"
    pairs = ", ".join(dict.fromkeys(item.run.spec.pair for item in items))
    what = f" {group}" if group else ""
    return f"baseline: {pairs}{what} (median of {len(items)})"


def group_values(runs: Sequence[Run], kind: str) -> dict[str, tuple[int, ...]]:
    """The values a group kind takes among ``runs`` (label, pair or tag KEY=VALUE) → run ids."""
    groups: dict[str, list[int]] = {}
    for run in runs:
        if kind == "label":
            keys = [run.label] if run.label else []
        elif kind == "pair":
            keys = [run.spec.pair]
        else:
            keys = [f"{k}={v}" for k, v in sorted(run.tags.items())]
        for key in keys:
            groups.setdefault(key, []).append(run.id)
    return {key: tuple(ids) for key, ids in sorted(groups.items())}


# -- the dialog ----------------------------------------------------------------------------


class BaselineDialog(QDialog):
    """Choose one stored run, or a group of runs whose median is the baseline."""

    COLUMNS = ("Run", "Started", "Pair", "Label", "Result")

    def __init__(self, runs: Sequence[Run], tool: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pin a baseline")
        self.runs = list(runs)
        self.one_run = QRadioButton(f"One stored {tool} run:")
        self.one_run.setChecked(True)
        self.table = QTableWidget(len(self.runs), len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(self.COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        for row, run in enumerate(self.runs):
            started = time_text(run.started_at, "%Y-%m-%d %H:%M")
            cells = (f"#{run.id}", started, run.spec.pair, run.label, key_result(run))
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        if self.runs:
            self.table.selectRow(0)
        self.median = QRadioButton("Median of the runs with")
        self.kind_combo = QComboBox()
        for kind in GROUP_KINDS:
            self.kind_combo.addItem(kind, kind)
        self.value_combo = QComboBox()
        self.value_combo.setMinimumContentsLength(16)
        group_row = QHBoxLayout()
        group_row.addWidget(self.median)
        group_row.addWidget(self.kind_combo)
        group_row.addWidget(self.value_combo, 1)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Pin")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.one_run)
        layout.addWidget(self.table, 1)
        layout.addLayout(group_row)
        layout.addWidget(self.buttons)
        self.kind_combo.currentIndexChanged.connect(self._fill_values)
        self.value_combo.activated.connect(lambda _i: self.median.setChecked(True))
        self.kind_combo.activated.connect(lambda _i: self.median.setChecked(True))
        self.table.itemSelectionChanged.connect(lambda: self.one_run.setChecked(True))
        for signal in (self.one_run.toggled, self.table.itemSelectionChanged):
            signal.connect(self._update_ok)
        self.value_combo.currentIndexChanged.connect(self._update_ok)
        self._fill_values()
        self.resize(640, 420)

    def _fill_values(self) -> None:
        kind = str(self.kind_combo.currentData())
        self.value_combo.clear()
        for value, ids in group_values(self.runs, kind).items():
            self.value_combo.addItem(f"{value} ({len(ids)} run{'s' * (len(ids) != 1)})", value)
            self.value_combo.setItemData(
                self.value_combo.count() - 1, ids, Qt.ItemDataRole.UserRole + 1
            )
        self._update_ok()

    def select_group(self, kind: str, value: str) -> None:
        """Choose "median of the runs with ``kind`` ``value``" (for tests and callers)."""
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))
        index = self.value_combo.findData(value)
        if index < 0:
            raise ValueError(f"no run has {kind} {value!r}")
        self.value_combo.setCurrentIndex(index)
        self.median.setChecked(True)

    def select_run(self, run_id: int) -> None:
        """Choose one run (for tests and callers)."""
        row = next(i for i, run in enumerate(self.runs) if run.id == run_id)
        self.table.selectRow(row)
        self.one_run.setChecked(True)

    def choice(self) -> BaselineChoice | None:
        """What the user chose, or None (nothing valid selected)."""
        if self.median.isChecked():
            index = self.value_combo.currentIndex()
            if index < 0:
                return None
            ids = self.value_combo.itemData(index, Qt.ItemDataRole.UserRole + 1)
            kind = str(self.kind_combo.currentData())
            return BaselineChoice(tuple(ids), f"{kind} {self.value_combo.itemData(index)}")
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return BaselineChoice((self.runs[rows[0].row()].id,))

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(self.choice() is not None)


# -- the pin in a run tab ------------------------------------------------------------------


def baseline_pen() -> object:
    pen = pg.mkPen(color=BASELINE_COLOR, width=2, style=Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


class BaselinePin(QWidget):
    """The "Pin baseline…" / "Unpin" controls of a run tab, and the baseline curves they draw."""

    def __init__(
        self,
        plots: RunPlots,
        bridge: EngineBridge,
        controller: RunController,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.plots = plots
        self.bridge = bridge
        self.controller = controller
        self.baseline: Baseline | None = None
        self.dialog: BaselineDialog | None = None
        self.items: dict[tuple[str, str], tuple[LivePlot, pg.PlotDataItem]] = {}  # (plot, metric)
        self._request = 0  # answers to an older request are dropped
        self.pin_button = QPushButton("Pin baseline…")
        self.pin_button.setToolTip(
            "Draw a stored run of the same tool (or a group's median) under the live curves"
        )
        self.pin_button.clicked.connect(self.choose)
        self.unpin_button = QPushButton("Unpin")
        self.unpin_button.setVisible(False)
        self.unpin_button.clicked.connect(self.unpin)
        self.status = QLabel()
        self.status.setStyleSheet("color: #555;")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pin_button)
        layout.addWidget(self.unpin_button)
        layout.addWidget(self.status, 1)
        plots.timer.timeout.connect(self.sync)  # plots and curves appear as records arrive

    # -- choosing and loading --------------------------------------------------------------

    def choose(self) -> None:
        """List the stored runs of this tool (engine thread), then open the dialog."""
        tool, own = self.controller.spec.tool, self.controller.run_id
        self.pin_button.setEnabled(False)
        self.status.setText("Loading runs…")

        async def job(lib: Library) -> list[Run]:
            return stored_runs(lib, tool, own)

        call_for(self, self.bridge, job, self._open_dialog, self._failed)

    def _open_dialog(self, runs: list[Run]) -> None:
        self.pin_button.setEnabled(True)
        self.status.setText(self.baseline.name if self.baseline else "")
        if not runs:
            self.status.setText(f"No stored {self.controller.spec.tool} run to pin yet.")
            return
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = BaselineDialog(runs, self.controller.spec.tool, self)
        self.dialog.accepted.connect(self._dialog_accepted)
        self.dialog.open()

    def _dialog_accepted(self) -> None:
        choice = self.dialog.choice() if self.dialog is not None else None
        if choice is not None:
            self.pin(choice)

    def pin(self, choice: BaselineChoice) -> None:
        """Load the chosen runs' series (engine thread) and draw them as the baseline."""
        self._request += 1
        request = self._request
        self.status.setText("Loading the baseline…")

        async def job(lib: Library) -> Baseline:
            return load_baseline(lib, choice)

        def done(baseline: Baseline) -> None:
            if request == self._request:
                self.show_baseline(baseline)

        call_for(self, self.bridge, job, done, self._failed)

    def _failed(self, error: BaseException) -> None:
        self.pin_button.setEnabled(True)
        self.status.setText(f"Baseline: {error_text(error)}")

    # -- drawing ---------------------------------------------------------------------------

    def show_baseline(self, baseline: Baseline) -> None:
        """Replace any pinned baseline with ``baseline``."""
        self._remove_items()
        self.baseline = baseline
        self.unpin_button.setVisible(True)
        self.status.setText(baseline.name if baseline.curves else f"{baseline.name}: no series")
        self.sync()

    def unpin(self) -> None:
        """Remove the baseline."""
        self._request += 1  # a baseline still loading is dropped too
        self._remove_items()
        self.baseline = None
        self.unpin_button.setVisible(False)
        self.status.setText("")

    def sync(self) -> None:
        """Give every plot with a live "sum" curve of a baseline metric its baseline curve."""
        baseline = self.baseline
        if baseline is None:
            return
        for plot in list(self.plots.plots.values()):
            added = False
            for stream, metric in list(plot.curves):
                key = (plot.spec.id, metric)
                if stream != "sum" or key in self.items or metric not in baseline.curves:
                    continue
                t, v = baseline.curves[metric]
                name = baseline.name
                if metric != plot.spec.primary:
                    name += f" · {plot.curves[(stream, metric)].name.split(' · ')[0]}"
                item = pg.PlotDataItem(t, v, name=name, pen=baseline_pen())
                item.setZValue(-5)  # under the live curves
                plot.add_overlay(item)
                self.items[key] = (plot, item)
                added = True
            if added and not self.plots.follow:  # following refits y at the next redraw
                plot.fit_y(*plot.view_box.viewRange()[0])

    def _remove_items(self) -> None:
        for plot, item in self.items.values():
            plot.remove_overlay(item)
        self.items.clear()
