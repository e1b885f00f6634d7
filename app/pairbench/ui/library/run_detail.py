"""One stored run in full: its plots, summary, parameters, host facts, notes and raw output."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

# isort: split

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain.telemetry import is_telemetry
from pairbench.services.burst import analyze_stored_burst
from pairbench.services.library import Library
from pairbench.services.run_again import (
    COMMANDS_KIND,
    commands_text,
    run_again_line,
    run_again_spec,
)
from pairbench.services.run_browser import RunDetail, SeriesArrays, load_run_detail
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.library.burst_box import KIND, BurstBox, BurstMarks, has_step
from pairbench.ui.library.fio_tabs import FioTabs
from pairbench.ui.library.hosts_detail import HostsDetail
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.live_plots import plot_groups, update_plots
from pairbench.ui.library.metric_plot import MetricPlot
from pairbench.ui.library.run_detail_parts import (
    clear_layout,
    info_tree,
    mono_text,
    raw_text_of,
    run_subtitle,
    run_title,
    selectable_label,
    title_label,
)
from pairbench.ui.library.run_info import duration_text, fill_info

LIVE_COLOR = "#1f6feb"  # the live line: the colour of a running status


class RunDetailView(QWidget):
    """Loads a run through the bridge and shows it; ``closed`` asks to go back to the list."""

    closed = Signal()
    loaded = Signal(object)  # RunDetail
    failed = Signal(str)
    run_again = Signal(object)  # RunSpec: repeat this run (the window opens the run panel)
    burstAnalysed = Signal(int, object)  # run id, BurstEstimate: stored with the run

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.detail: RunDetail | None = None
        self.analyses: dict[str, dict[str, Any]] = {}  # kind → stored analysis (JSON)
        self.run_id: int | None = None
        self.summary_item: QTreeWidgetItem | None = None
        self.duration_text = ""
        self.team_note = ""  # a team run's origin: shown read-only (no Run again)
        self._generation = 0

        self.back_button = QPushButton("◀ All runs")
        self.back_button.clicked.connect(self.closed)
        self.title = title_label()
        self.subtitle = selectable_label()
        self.error_label = selectable_label("#b3261e")
        self.error_label.hide()
        self.live_label = QLabel()  # "live: updated HH:MM:SS, N samples" while it follows
        self.live_label.setObjectName("live_label")
        self.live_label.setStyleSheet(f"color: {LIVE_COLOR};")
        self.live_label.hide()

        self.info_tree = info_tree()

        self.plots_box = QWidget()
        self.plots_layout = QVBoxLayout(self.plots_box)
        self.plots_layout.setContentsMargins(4, 4, 4, 4)
        self.plots_scroll = QScrollArea()
        self.plots_scroll.setWidgetResizable(True)
        self.plots_scroll.setWidget(self.plots_box)
        self.plots: list[MetricPlot] = []
        self.burst_box = BurstBox()  # the stored burst analysis, above the plots
        self.burst_box.analyseRequested.connect(self.analyse_burst)
        self.burst_marks: BurstMarks | None = None
        self._analyse_when_loaded = False
        plots_page = QWidget()
        plots_page_layout = QVBoxLayout(plots_page)
        plots_page_layout.setContentsMargins(0, 0, 0, 0)
        plots_page_layout.addWidget(self.burst_box)
        plots_page_layout.addWidget(self.plots_scroll, 1)

        self.raw_text = mono_text()
        self.commands_text = mono_text()

        self.tabs = QTabWidget()
        self.tabs.addTab(plots_page, "Plots")
        self.hosts = HostsDetail()  # the verdict and the hosts' telemetry
        self.tabs.addTab(self.hosts, "Hosts")
        self.tabs.addTab(self.raw_text, "Raw output")
        self.tabs.addTab(self.commands_text, "Commands")
        self.fio_tabs = FioTabs()  # the latency histogram's and fio logs' tabs, when stored

        self.copy_button = QPushButton("Copy as command")
        self.copy_button.setToolTip("Copy the `pairbench run` line that runs this run again")
        self.copy_button.clicked.connect(self.copy_command)
        self.again_button = QPushButton("Run again…")
        self.again_button.setToolTip("Open the run panel with this run's tool and parameters")
        self.again_button.clicked.connect(self._run_again)
        for button in (self.copy_button, self.again_button):
            button.setEnabled(False)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("run_detail_split")
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
        titles.addWidget(self.live_label)
        titles.addWidget(self.error_label)
        header.addLayout(titles, 1)
        header.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.again_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(splitter, 1)

    def show_run(self, run_id: int, *, analyse_burst: bool = False) -> None:
        """Load the run (off the GUI thread) and show it when it arrives; with
        ``analyse_burst``, then analyse its burst credits (the Library's menu)."""

        async def job(lib: Library) -> RunDetail:
            return load_run_detail(lib, run_id)

        self.load(run_id, job)
        self._analyse_when_loaded = analyse_burst

    @property
    def generation(self) -> int:
        """Counts the runs opened: what was started for an earlier one is stale."""
        return self._generation

    def load(self, run_id: int, job: EngineJob[RunDetail], *, team_note: str = "") -> None:
        """Show the detail ``job`` loads on the engine thread; with ``team_note`` (where a team
        run comes from) the run is the team library's: read-only, no Run again."""
        generation = self.begin(run_id, team_note=team_note)

        def done(detail: RunDetail) -> None:
            if generation == self._generation:
                self.analyses = detail.analyses
                self._show(detail)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.show_error(error_text(error))

        call_for(self, self.bridge, job, done, failed)

    def begin(self, run_id: int, *, team_note: str = "") -> int:
        """Clear the view for run ``run_id`` ("Loading…"); its generation, for what is to show
        it (``load``, or the copies of a team run followed live: ``show_copy``)."""
        self._generation += 1
        self.run_id = run_id
        self.team_note = team_note
        for button in (self.copy_button, self.again_button):
            button.setEnabled(False)
        self.detail = None
        self.analyses = {}
        self.title.setText(f"Run {run_id}")
        self.subtitle.setText("Loading…")
        self.error_label.hide()
        self.live_label.hide()
        self.summary_item = None
        self.burst_marks = None
        self.burst_box.hide()
        self.info_tree.clear()
        self.raw_text.clear()
        self._clear_plots()
        self.fio_tabs.show(self.tabs, {})
        return self._generation

    def show_error(self, text: str) -> None:
        """The run could not be opened: say why."""
        self.subtitle.setText("")
        self.error_label.setText(f"Cannot open run {self.run_id}: {text}")
        self.error_label.show()
        self.failed.emit(text)

    def show_copy(self, detail: RunDetail, live_line: str) -> None:
        """A new copy of the team run followed live: the first one, or a copy of another
        status, shows in full; the next ones update the status line and the plots in place
        (the plots are made again only when a metric, stream or axis scale changes)."""
        shown = self.detail
        if shown is None or shown.run.status is not detail.run.status:
            self.error_label.hide()  # a server out of reach said before it came
            self.analyses = detail.analyses
            self._show(detail)
        else:
            self.detail = detail
            self.duration_text = duration_text(detail.run, detail.series)
            self.subtitle.setText(run_subtitle(detail.run, self.duration_text, self.team_note))
            if not update_plots(self.plots, detail.series):
                self._fill_plots(detail.series, detail.run.spec.tool)
        self.live_label.setText(live_line)
        self.live_label.setVisible(bool(live_line))

    def _clear_plots(self) -> None:
        self.plots = []
        clear_layout(self.plots_layout)

    def _show(self, detail: RunDetail) -> None:
        self.detail = detail
        run = detail.run
        self.duration_text = duration_text(run, detail.series)
        self.title.setText(run_title(run, self.team_note))
        self.subtitle.setText(run_subtitle(run, self.duration_text, self.team_note))
        if run.error:
            self.error_label.setText(run.error)
            self.error_label.show()
        self._fill_plots(detail.series, run.spec.tool)
        step = self._show_burst()
        limited_by = self.hosts.show_detail(detail, self.analyses).label()
        self.summary_item = fill_info(self.info_tree, run, self.duration_text, step, limited_by)
        self.commands_text.setPlainText(commands_text(run, self.analyses.get(COMMANDS_KIND)))
        self.fio_tabs.show(self.tabs, self.analyses)
        self.copy_button.setEnabled(True)
        self.again_button.setEnabled(not self.team_note)
        self.again_button.setToolTip(
            "A team run is read-only: Copy as command gives its line to run it here"
            if self.team_note
            else "Open the run panel with this run's tool and parameters"
        )
        self.raw_text.setPlainText(raw_text_of(detail))
        self.loaded.emit(detail)
        if self._analyse_when_loaded:
            self._analyse_when_loaded = False
            self.analyse_burst()

    # -- burst credits ---------------------------------------------------------------------

    def throughput_plot(self) -> MetricPlot | None:
        """The plot of the run's throughput, if it has one."""
        return next((p for p in self.plots if p.metric == "throughput_bps"), None)

    def _show_burst(self) -> BurstEstimate | None:
        """The box and the marks for the stored analysis; the step when one was found."""
        series = self.detail.series if self.detail is not None else []
        applies = any(s.stream == "sum" and s.metric == "throughput_bps" for s in series)
        plot = self.throughput_plot()
        self.burst_box.setVisible(applies or KIND in self.analyses)
        e = self.burst_box.show_analyses(self.analyses, can_analyse=applies and not self.team_note)
        if plot is not None and has_step(e) and e is not None:
            self.burst_marks = BurstMarks(plot, e)
        return e if has_step(e) else None

    def analyse_burst(self) -> None:
        """Analyse the run's total throughput for burst credits (``pairbench analyze burst``),
        store it with the run, and show it; ``burstAnalysed`` tells the Library."""
        run_id, generation = self.run_id, self._generation
        if run_id is None or self.detail is None or self.team_note:
            return
        self.burst_box.analyse_button.setEnabled(False)
        self.burst_box.show_message("Analysing…")

        async def job(lib: Library) -> BurstEstimate:
            return analyze_stored_burst(lib, run_id, store=True)

        def done(estimate: BurstEstimate) -> None:
            if generation != self._generation or self.detail is None:
                return
            self.analyses = {**self.analyses, KIND: estimate.to_json()}
            self._fill_plots(self.detail.series, self.detail.run.spec.tool)
            step = self._show_burst()
            self.summary_item = fill_info(self.info_tree, self.detail.run, self.duration_text, step)
            self.burstAnalysed.emit(run_id, estimate)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.burst_box.analyse_button.setEnabled(True)
                self.burst_box.show_message(f"Not analysed: {error_text(error)}")

        call_for(self, self.bridge, job, done, failed)

    def copy_command(self) -> str:
        """Put the ``pairbench run`` line of the run shown on the clipboard; the line."""
        if self.detail is None:
            return ""
        line = run_again_line(self.detail.run)
        QApplication.clipboard().setText(line)
        return line

    def _run_again(self) -> None:
        if self.detail is not None and not self.team_note:
            self.run_again.emit(run_again_spec(self.detail.run))

    def _fill_plots(self, series: list[SeriesArrays], tool: str) -> None:
        self._clear_plots()
        series = [s for s in series if not is_telemetry(s.stream)]  # the Hosts tab's
        colors: dict[str, int] = {}  # one colour per stream in every plot of the run
        for metric, group in plot_groups(series).items():
            plot = MetricPlot(metric, group, tool, stream_colors=colors)
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
