"""The compare view: runs overlaid, a summary with CIs, the comparison table, what differs.

Built around the Qt-free model (``analysis.compare``) and exports (``export``): the view only
gathers the user's choices (metric, grouping, outlier policy, baseline, chart size and dpi),
calls ``compare`` and shows the result. ``open_compare(bridge, run_ids)`` is what a
"Compare" action of the library view calls: it loads the runs on the engine thread (a
progress dialog past 200 ms, which can cancel) and opens the view when they are in.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import (
    CompareError,
    GroupBy,
    RunInput,
    default_metric,
    metric_info,
    tag_value,
)
from pairbench.analysis.outliers import OutlierMethod, OutlierPolicy
from pairbench.export.charts import ChartKind, ChartSpec, SummaryStyle, chart_spec
from pairbench.export.table_render import to_html
from pairbench.export.tables import (
    Report,
    TextTable,
    comparison_report,
    diff_table,
    headline_table,
    stats_table,
    welch_table,
)
from pairbench.ui.compare.export_row import ExportRow
from pairbench.ui.compare.render import ChartWidget

# The "Chart" box: what the chart shows (kind) and how the summary draws each group.
CHART_CHOICES = (
    ("Overlay and means with CI", ("both", "points")),
    ("Overlay of the runs", ("overlay", "points")),
    ("Means with CI", ("summary", "points")),
    ("Bars with CI", ("summary", "bars")),
    ("Box plot", ("summary", "box")),
)


class CompareView(QWidget):
    """Compare the given runs; every control recomputes the comparison at once."""

    compared = Signal()  # after each recomputation (tests and status bars listen)

    def __init__(
        self,
        inputs: list[RunInput],
        parent: QWidget | None = None,
        *,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("compareView")
        self.inputs: list[RunInput] = inputs
        self.settings = settings  # the window's: where exports went last
        self.comparison: Comparison | None = None
        self.report: Report | None = None
        self.chart: ChartWidget | None = None
        self._build_controls()
        self._build_body()
        self.refresh()

    # --- layout --------------------------------------------------------------------------

    def _build_controls(self) -> None:
        self.metric_box = QComboBox()
        metrics = sorted({m for i in self.inputs for m in _metrics(i)})
        for name in metrics:
            info = metric_info(name)
            self.metric_box.addItem(f"{info.label} ({info.unit})" if info.unit else name, name)
        self.metric_box.setCurrentIndex(max(0, metrics.index(default_metric(self.inputs))))
        self.group_box = QComboBox()
        self.group_box.addItem("each run", "run")
        self.group_box.addItem("label", "label")
        self.group_box.addItem("pair", "pair")
        if any(item.ran_by for item in self.inputs):
            self.group_box.addItem("who ran it", "ran_by")
        for key in _tag_keys(self.inputs):
            self.group_box.addItem(f"tag {key}", f"tag:{key}")
        self.outlier_box = QComboBox()
        self.outlier_box.addItem("keep every run", "none")
        self.outlier_box.addItem("beyond k×IQR", "iqr")
        self.outlier_box.addItem("beyond k×MAD", "mad")
        self.k_box = QDoubleSpinBox()
        self.k_box.setRange(0.5, 1000.0)
        self.k_box.setSingleStep(0.5)
        self.k_box.setPrefix("k = ")
        self.k_box.setValue(1.5)
        self.k_box.setEnabled(False)
        self.baseline_box = QComboBox()
        self.chart_box = QComboBox()
        for box in (self.metric_box, self.group_box, self.baseline_box, self.chart_box):
            # As wide as ~14 characters whatever a run's label: the view fits 1280 px.
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.setMinimumContentsLength(14)
        for text, choice in CHART_CHOICES:
            self.chart_box.addItem(text, choice)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.origins = QLabel()  # a mix of this computer's and team runs: where each is from
        self.origins.setObjectName("compareOrigins")
        self.origins.setWordWrap(True)
        self.origins.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.origins.hide()

        row = QHBoxLayout()
        for text, widget in (
            ("Metric", self.metric_box),
            ("Group", self.group_box),
            ("Outliers", self.outlier_box),
            ("", self.k_box),
            ("Baseline", self.baseline_box),
            ("Chart", self.chart_box),
        ):
            if text:
                row.addWidget(QLabel(text))
            row.addWidget(widget)
        row.addStretch(1)
        self.controls = row
        self.metric_box.currentIndexChanged.connect(self.refresh)
        self.group_box.currentIndexChanged.connect(self._regroup)
        self.outlier_box.currentIndexChanged.connect(self._policy_changed)
        self.k_box.valueChanged.connect(self.refresh)
        self.baseline_box.currentIndexChanged.connect(self.refresh)
        self.chart_box.currentIndexChanged.connect(self._redraw)

        self.exports = ExportRow(
            self._sized_spec, lambda: (self.comparison, self.report), settings=self.settings
        )
        self.width_box = self.exports.width_box
        self.height_box = self.exports.height_box
        self.dpi_box = self.exports.dpi_box

    def _build_body(self) -> None:
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.chart_holder = QWidget()
        self.chart_layout = QVBoxLayout(self.chart_holder)
        self.chart_layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.table_view = QTableWidget()
        self.stats_view = QTableWidget()
        self.welch_view = QTableWidget()
        self.diff_view = QTableWidget()
        self.notes_view = QTextBrowser()
        for widget, title in (
            (self.table_view, "Comparison"),
            (self.stats_view, "Statistics"),
            (self.welch_view, "Against the baseline"),
            (self.diff_view, "What differs"),
            (self.notes_view, "Report"),
        ):
            self.tabs.addTab(widget, title)
        self.splitter.addWidget(self.chart_holder)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(self.controls)
        layout.addWidget(self.origins)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.exports)

    # --- state -------------------------------------------------------------------------

    def show_origins(self, text: str) -> None:
        """Say where the runs come from (team runs: ``#-N``, UUID, who ran them)."""
        self.origins.setText(text)
        self.origins.setVisible(bool(text))

    def policy(self) -> OutlierPolicy:
        """The outlier policy the controls describe."""
        method = OutlierMethod(self.outlier_box.currentData())
        if method is OutlierMethod.NONE:
            return OutlierPolicy()
        return OutlierPolicy(method, self.k_box.value())

    def _policy_changed(self) -> None:
        method = OutlierMethod(self.outlier_box.currentData())
        self.k_box.blockSignals(True)
        self.k_box.setEnabled(method is not OutlierMethod.NONE)
        self.k_box.setValue(1.5 if method is OutlierMethod.IQR else 3.0)
        self.k_box.blockSignals(False)
        self.refresh()

    def _regroup(self) -> None:
        self.baseline_box.blockSignals(True)
        self.baseline_box.clear()
        self.baseline_box.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the comparison and redraw everything."""
        baseline = self.baseline_box.currentData() if self.baseline_box.count() else None
        try:
            cmp = compare(
                self.inputs,
                metric=self.metric_box.currentData(),
                group_by=GroupBy.parse(self.group_box.currentData()),
                policy=self.policy(),
                baseline=baseline,
            )
        except (CompareError, ValueError) as exc:
            self.status.setText(f"Cannot compare: {exc}")
            return
        self.comparison = cmp
        self.report = comparison_report(cmp)
        self._fill_baselines(cmp)
        self._show_chart(cmp)
        _fill(self.table_view, headline_table(cmp))
        _fill(self.stats_view, stats_table(cmp))
        _fill(self.welch_view, welch_table(cmp))
        _fill(self.diff_view, diff_table(cmp))
        self.notes_view.setHtml(to_html(self.report))
        discarded = ", ".join(f"run {d.run_id} ({d.reason})" for d in cmp.discarded)
        note = self.chart.spec.note if self.chart is not None else ""
        self.status.setText(
            f"{len(cmp.runs)} runs in {len(cmp.groups)} group(s); outlier policy "
            f"{cmp.policy.describe()}"
            + (f"; discarded: {discarded}" if discarded else "")
            + (f". {note}." if note else "")
        )
        self.compared.emit()

    def _fill_baselines(self, cmp: Comparison) -> None:
        names = [g.name for g in cmp.groups]
        current = [self.baseline_box.itemData(i) for i in range(self.baseline_box.count())]
        if current != names:
            self.baseline_box.blockSignals(True)
            self.baseline_box.clear()
            for name in names:
                self.baseline_box.addItem(name, name)
            self.baseline_box.blockSignals(False)
        if cmp.baseline is not None:
            self.baseline_box.blockSignals(True)
            self.baseline_box.setCurrentIndex(names.index(cmp.baseline))
            self.baseline_box.blockSignals(False)

    def chart_choice(self) -> tuple[ChartKind, SummaryStyle]:
        """The chart kind and summary style chosen in the "Chart" box."""
        kind, style = self.chart_box.currentData()
        return ChartKind(kind), SummaryStyle(style)

    def spec(self, kind: ChartKind | None = None) -> ChartSpec:
        """The chart spec of the current comparison at the chosen size, dpi and kind."""
        return self._sized_spec(
            self.width_box.value(), self.height_box.value(), self.dpi_box.value(), kind
        )

    def _sized_spec(
        self, width: int, height: int, dpi: int, kind: ChartKind | None = None
    ) -> ChartSpec:
        assert self.comparison is not None
        chosen, style = self.chart_choice()
        return chart_spec(
            self.comparison, kind or chosen, width=width, height=height, dpi=dpi, style=style
        )

    def _redraw(self) -> None:
        if self.comparison is not None:
            self._show_chart(self.comparison)

    def _show_chart(self, cmp: Comparison) -> None:
        if self.chart is not None:
            self.chart_layout.removeWidget(self.chart)
            self.chart.release()
        kind, style = self.chart_choice()
        self.chart = ChartWidget(chart_spec(cmp, kind, style=style))
        self.chart.setMinimumSize(400, 300)
        self.chart_layout.addWidget(self.chart)

    # --- exports (``ExportRow``) ---------------------------------------------------------

    def export_chart(self, path: Path) -> Path:
        """Write the chart at the chosen size, dpi and kind (PNG, SVG or PDF by suffix)."""
        return self.exports.export_chart(path)

    def export_table(self, path: Path) -> Path:
        """Write the comparison as Markdown, CSV or HTML (by suffix)."""
        return self.exports.export_table(path)

    def copy_chart(self) -> None:
        self.exports.copy_chart()

    def copy_table(self) -> None:
        self.exports.copy_table()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.chart is not None:
            self.chart.release()
            self.chart = None
        super().closeEvent(event)


def _metrics(item: RunInput) -> set[str]:
    return {k for k in item.run.summary} | {s.metric for s in item.series}


def _tag_keys(inputs: list[RunInput]) -> list[str]:
    keys: set[str] = set()
    for item in inputs:
        keys |= set(item.run.tags)
        if item.pair is not None:
            keys |= set(item.pair.tags) | set(item.pair.client.tags)
    return sorted(k for k in keys if any(tag_value(i, k) for i in inputs))


def _fill(view: QTableWidget, table: TextTable | None) -> None:
    view.clear()
    if table is None:
        view.setRowCount(0)
        view.setColumnCount(1)
        view.setHorizontalHeaderLabels(["Nothing to show"])
        return
    view.setColumnCount(len(table.headers))
    view.setRowCount(len(table.rows))
    view.setHorizontalHeaderLabels(list(table.headers))
    for r, row in enumerate(table.rows):
        for c, (text, align) in enumerate(zip(row, table.align, strict=True)):
            item = QTableWidgetItem(text)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            if align == "r":
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            view.setItem(r, c, item)
    view.resizeColumnsToContents()


def show_compare(inputs: list[RunInput], parent: QWidget | None = None) -> CompareView:
    """A compare view of these loaded runs in its own window (exports open in the folder the
    window's settings remember, when its parent has them)."""
    settings = getattr(parent, "settings", None)
    kept = settings if isinstance(settings, QSettings) else None
    view = CompareView(inputs, parent, settings=kept)
    view.setWindowFlag(Qt.WindowType.Window, True)
    view.setWindowTitle(f"Compare {len(inputs)} runs — Pairbench")
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    view.resize(fitted_size(view, 1300, 900))
    view.show()
    return view


def fitted_size(widget: QWidget, width: int, height: int) -> QSize:
    """``width`` × ``height``, shrunk to the screen's free area (a 1280×720 screen too)."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return QSize(width, height)
    free = screen.availableGeometry()
    return QSize(min(width, free.width()), min(height, free.height()))
