"""One stored run in full: its plots, summary, parameters, host facts, notes and raw output."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

# isort: split
import pyqtgraph as pg  # after PySide6 (DESIGN §2)

from pairbench.domain import Run
from pairbench.domain.host_text import format_tags
from pairbench.domain.metrics import metric_label, metric_order
from pairbench.domain.units import format_value, range_scale
from pairbench.services.library import Library
from pairbench.services.run_browser import RunDetail, SeriesArrays, load_run_detail
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.runs_model import STATUS_COLORS
from pairbench.ui.run.burst_panel import burst_analysis_rows

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
PLOT_HEIGHT = 210
FEW_POINTS = 40  # up to this many samples, each is drawn as a dot too


def _when(epoch: float | None) -> str:
    return "" if epoch is None else datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "still running"
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(int(minutes), 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02.0f} s"
    return f"{secs:.1f} s"


def _duration_text(run: Run, series: list[SeriesArrays]) -> str:
    """The run's wall-clock duration; for an import (no duration), the span its samples cover."""
    span = max((float(one.t[-1]) for one in series if len(one.t)), default=0.0)
    if run.duration is not None and run.duration < 0.5 and span > 0:
        return f"{_duration(span)} of samples"
    return _duration(run.duration)


def _without_copied_sum(group: list[SeriesArrays]) -> list[SeriesArrays]:
    """Drop a "sum" that only repeats the single stream it sums (one curve, not two)."""
    sums = [one for one in group if one.stream == "sum"]
    others = [one for one in group if one.stream != "sum"]
    if len(sums) == 1 and len(others) == 1:
        total, single = sums[0], others[0]
        if np.array_equal(total.t, single.t) and np.array_equal(total.v, single.v):
            return others
    return group


def _max_abs(values: np.ndarray) -> float:
    """The largest finite magnitude of ``values`` (0.0 when none is finite)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


class MetricPlot(pg.PlotWidget):
    """One metric over time, a curve per stream ("sum" drawn thicker)."""

    def __init__(self, metric: str, series: list[SeriesArrays], tool: str = "") -> None:
        super().__init__(background="w")
        self.metric = metric
        unit = series[0].unit if series else ""
        # The axis in the unit vocabulary's scale for these values (Gbit/s, MiB/s, ms).
        scale = range_scale(unit, (_max_abs(one.v) for one in series))
        factor = scale.factor
        title = metric_label(metric, tool)
        self.setMinimumHeight(PLOT_HEIGHT)
        self.setMaximumHeight(PLOT_HEIGHT + 60)
        item = self.getPlotItem()
        item.setTitle(title, size="10pt", color="#202020")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen("#606060")
            item.getAxis(axis).setTextPen("#303030")
        item.getAxis("left").setWidth(72)  # the same for every plot: their x axes line up
        if scale.unit:
            item.setLabel("left", scale.unit)
        item.setLabel("bottom", "time since start", units="s")
        if len(series) > 1:
            item.addLegend(offset=(-10, 10), labelTextColor="#202020")
        self.curves: dict[str, pg.PlotDataItem] = {}
        top = 0.0
        for index, one in enumerate(series):
            is_sum = one.stream == "sum"
            color = "#202020" if is_sum else _COLORS[index % len(_COLORS)]
            pen = pg.mkPen(color, width=2 if is_sum else 1.3)
            values = np.asarray(one.v * factor if factor != 1.0 else one.v)
            dots: dict[str, object] = {}
            if len(one.t) <= FEW_POINTS:  # a line needs two points; a summary-only job has one
                dots = {"symbol": "o", "symbolSize": 6, "symbolBrush": color, "symbolPen": None}
            curve = item.plot(
                np.asarray(one.t), values, pen=pen, name=one.stream, skipFiniteCheck=True, **dots
            )
            self.curves[one.stream] = curve
            finite = values[np.isfinite(values)]
            if len(finite):
                top = max(top, float(finite.max()))
                if float(finite.min()) < 0:
                    top = float("nan")  # negative values: let pyqtgraph choose
        item.enableAutoRange(axis="x")
        if top > 0:  # rates, counts and times read best from zero (a flat line too)
            item.setYRange(0.0, top * 1.08, padding=0)
        else:
            item.enableAutoRange(axis="y")


class RunDetailView(QWidget):
    """Loads a run through the bridge and shows it; ``closed`` asks to go back to the list."""

    closed = Signal()
    loaded = Signal(object)  # RunDetail
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.detail: RunDetail | None = None
        self.analyses: dict[str, dict[str, Any]] = {}  # kind → stored analysis (JSON)
        self.run_id: int | None = None
        self.summary_item: QTreeWidgetItem | None = None
        self.duration_text = ""
        self._generation = 0

        self.back_button = QPushButton("◀ All runs")
        self.back_button.clicked.connect(self.closed)
        self.title = QLabel("Loading…")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.subtitle = QLabel()
        self.subtitle.setWordWrap(True)
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b3261e;")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()

        self.info_tree = QTreeWidget()
        self.info_tree.setColumnCount(2)
        self.info_tree.setHeaderLabels(["", "Value"])
        self.info_tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.info_tree.setAlternatingRowColors(True)
        self.info_tree.setMinimumWidth(300)

        self.plots_box = QWidget()
        self.plots_layout = QVBoxLayout(self.plots_box)
        self.plots_layout.setContentsMargins(4, 4, 4, 4)
        self.plots_scroll = QScrollArea()
        self.plots_scroll.setWidgetResizable(True)
        self.plots_scroll.setWidget(self.plots_box)
        self.plots: list[MetricPlot] = []

        self.raw_text = QPlainTextEdit()
        self.raw_text.setReadOnly(True)
        self.raw_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.raw_text.setFont(mono)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.plots_scroll, "Plots")
        self.tabs.addTab(self.raw_text, "Raw output")

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.info_tree)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 5)
        splitter.setChildrenCollapsible(False)

        header = QHBoxLayout()
        header.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignTop)
        titles = QVBoxLayout()
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        titles.addWidget(self.error_label)
        header.addLayout(titles, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(splitter, 1)

    def show_run(self, run_id: int) -> None:
        """Load the run (off the GUI thread) and show it when it arrives."""
        self._generation += 1
        generation = self._generation
        self.run_id = run_id
        self.detail = None
        self.analyses = {}
        self.title.setText(f"Run {run_id}")
        self.subtitle.setText("Loading…")
        self.error_label.hide()
        self.summary_item = None
        self.info_tree.clear()
        self.raw_text.clear()
        self._clear_plots()

        async def job(lib: Library) -> RunDetail:
            return load_run_detail(lib, run_id)

        def done(detail: RunDetail) -> None:
            if generation == self._generation:
                self.analyses = detail.analyses
                self._show(detail)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.subtitle.setText("")
                self.error_label.setText(f"Cannot open run {run_id}: {error_text(error)}")
                self.error_label.show()
                self.failed.emit(error_text(error))

        call_for(self, self.bridge, job, done, failed)

    def _clear_plots(self) -> None:
        self.plots = []
        while self.plots_layout.count():
            item = self.plots_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)  # gone from the view now, not at the next event loop
                widget.deleteLater()

    def _show(self, detail: RunDetail) -> None:
        self.detail = detail
        run = detail.run
        self.duration_text = _duration_text(run, detail.series)
        self.title.setText(
            f"Run {run.id} · {run.spec.tool} on {run.spec.pair}"
            + (f" · {run.label}" if run.label else "")
        )
        color = STATUS_COLORS.get(run.status)
        status = (
            f'<span style="color:{color.name()}">{run.status.value}</span>'
            if color
            else run.status.value
        )
        self.subtitle.setText(
            f"{status} · started {_when(run.started_at)} · {self.duration_text}"
            + (f" · {run.tool_version}" if run.tool_version else "")
        )
        if run.error:
            self.error_label.setText(run.error)
            self.error_label.show()
        self._fill_info(run)
        self._fill_plots(detail.series, run.spec.tool)
        text = detail.raw_text
        if detail.raw_truncated:
            text += "\n\n[… the raw output is longer; the rest is not shown here]"
        self.raw_text.setPlainText(text or "(no raw output stored)")
        self.loaded.emit(detail)

    def _fill_info(self, run: Run) -> None:
        tree = self.info_tree
        tree.clear()

        def section(
            title: str, rows: list[tuple[str, str]], empty: str = "none"
        ) -> QTreeWidgetItem:
            top = QTreeWidgetItem([title, "" if rows else empty])
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            for key, value in rows:
                child = QTreeWidgetItem([key, value])
                child.setToolTip(1, value)
                top.addChild(child)
            tree.addTopLevelItem(top)
            top.setExpanded(True)
            return top

        summary_rows = [
            (metric_label(name, run.spec.tool), format_value(name, run.summary[name]))
            for name in metric_order(run.summary)
        ]
        self.summary_item = section(
            "Summary" + ("" if run.summary_complete or not run.summary else " (partial)"),
            summary_rows,
        )
        section("Parameters", [(k, v) for k, v in sorted(run.spec.params.items())], "none recorded")
        section(
            "Run",
            [
                ("id", str(run.id)),
                ("pair", run.spec.pair),
                ("tool", run.spec.tool + (f" ({run.tool_version})" if run.tool_version else "")),
                ("status", run.status.value),
                ("started", _when(run.started_at)),
                ("ended", _when(run.ended_at)),
                ("duration", self.duration_text),
                ("label", run.label),
                ("tags", format_tags(run.tags)),
                ("notes", run.notes),
            ],
        )
        facts = section("Host facts", [], "none recorded")
        for host, values in sorted(run.host_facts.items()):
            host_item = QTreeWidgetItem([host, ""])
            for key, value in sorted(values.items()):
                child = QTreeWidgetItem([key, value])
                child.setToolTip(1, value)
                host_item.addChild(child)
            facts.addChild(host_item)
        facts.setExpanded(True)
        for kind, title in (("burst", "Burst analysis"), ("burst_refill", "Burst refill")):
            if kind in self.analyses:
                section(title, burst_analysis_rows(kind, self.analyses[kind]))
        tree.resizeColumnToContents(0)

    def _fill_plots(self, series: list[SeriesArrays], tool: str) -> None:
        self._clear_plots()
        by_metric: dict[str, list[SeriesArrays]] = defaultdict(list)
        for one in series:
            if len(one.t):
                by_metric[one.metric].append(one)
        for metric, group in by_metric.items():
            by_metric[metric] = _without_copied_sum(group)
        for metric in metric_order(by_metric):
            plot = MetricPlot(metric, by_metric[metric], tool)
            self.plots.append(plot)
            self.plots_layout.addWidget(plot)
        if not self.plots:
            self.plots_layout.addWidget(QLabel("This run stored no series to plot."))
        self.plots_layout.addStretch(1)

    def summary_texts(self) -> dict[str, str]:
        """The summary rows shown, label → value (for tests and copying)."""
        item = self.summary_item
        if item is None:
            return {}
        children = (item.child(i) for i in range(item.childCount()))
        return {child.text(0): child.text(1) for child in children if child is not None}
