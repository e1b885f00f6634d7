"""The live plots of one run: one plot per metric group, laid out as records reveal the metrics.

Records are appended to growable buffers as they arrive (the buffers belong to this object, not
to the plot widgets); a ~10 Hz timer takes them in and redraws only the plots that changed,
one plot at most every ``REDRAW_GAP_S`` (a run at 0.1 s is drawn as often as one at 1 s), and
only while the widget is visible: a run in a background tab keeps filling its buffers and
catches up when shown. Plot widgets are created on those ticks too, at most one per tick (a
pyqtgraph plot costs ~20 ms to build), so a run that starts never freezes the window. In
"follow" mode the x range is set here to the latest minutes; any zoom or pan by the user turns
follow off, the Follow button turns it back on. All plots share one x range.

Every plot of the run draws its per-stream curves only up to the newest total ("sum") interval
(``intervals.stream_horizon``), so the total never lags the streams when a tool prints it after
them; once the run ends, everything is drawn.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import partial

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Record
from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.follow_bar import DEFAULT_FOLLOW_WINDOW_S, FollowBar
from pairbench.ui.plotting.intervals import run_horizon
from pairbench.ui.plotting.layout import PlotSpec
from pairbench.ui.plotting.live_plot import LivePlot
from pairbench.ui.plotting.plot_rows import PlotRows
from pairbench.ui.plotting.run_series import RunSeries

REDRAW_INTERVAL_MS = 100  # ~10 Hz
PLOTS_PER_TICK = 1
# A tick redraws a plot at most this often: four plots a second, round robin (a run at 1 s with
# three plots still has each redrawn every second; one at 0.1 s no longer costs ten redraws).
REDRAW_GAP_S = 0.25
INGEST_BUDGET_S = 0.008  # per tick: ~8 % of the GUI thread at most for a flood of records
ATTACH_BUDGET_S = 0.004  # per tick, for new curves (unless a plot was built instead)


class RunPlots(QWidget):
    """All the live plots of one run, with Follow / window / Show all controls."""

    followChanged = Signal(bool)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        follow_window_s: float = DEFAULT_FOLLOW_WINDOW_S,
        redraw_interval_ms: int = REDRAW_INTERVAL_MS,
    ) -> None:
        super().__init__(parent)
        self.plots: dict[str, LivePlot] = {}  # plot id → widget (once created)
        self.data = RunSeries()
        self.series = self.data.series  # (stream, metric) → data
        self._missing = self.data.missing  # plot id → series not yet drawn
        self._next_plot = 0  # round robin of the plots redrawn on a tick
        self._show_all_when_drawn = False  # the run ended while following
        self._stream_colors: dict[str, int] = {}  # one colour per stream in every plot
        self._follow = True
        self._window_s = follow_window_s
        self._syncing = False
        self._ranges_stale = False
        self._finished = False  # the run ended: draw every sample, hold nothing back
        self.horizon: float | None = None  # per-stream curves drawn up to here (None: all)
        self.redraws = 0  # refreshes that changed something (for tests and benchmarks)

        self.follow_bar = FollowBar(follow_window_s)
        self.follow_button = self.follow_bar.follow_button
        self.follow_button.toggled.connect(self.set_follow)
        self.window_combo = self.follow_bar.window_combo
        self.window_combo.currentIndexChanged.connect(self._window_chosen)
        self.show_all_button = self.follow_bar.show_all_button
        self.show_all_button.clicked.connect(self.show_all)

        self.placeholder = QLabel("Waiting for the first samples…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: #777; padding: 24px;")
        self.rows = PlotRows(self.placeholder)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.rows)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.follow_bar)
        layout.addWidget(scroll, 1)

        self._drawn_at = 0.0  # when a tick last redrew a plot (time.monotonic)
        self._drew = False
        self.timer = QTimer(self)
        self.timer.setInterval(redraw_interval_ms)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    # -- data ------------------------------------------------------------------------------

    def add_records(self, records: Iterable[Record]) -> None:
        """Queue records (any mix of streams and metrics) for their buffers.

        Only queued here: a burst of signals (a fast tool, a replay) is then many cheap events,
        and the redraw tick moves the records into the buffers within a time budget
        (``INGEST_BUDGET_S``), so the event loop always gets back to its timers soon. Reading
        (``buffer``, ``sample_count``...) takes in whatever is still queued first.
        """
        self.data.queue(records)

    def add_series(self, stream: str, metric: str, t: np.ndarray, v: np.ndarray) -> None:
        """Append a whole series at once (a stored run, a replay)."""
        self.data.add(stream, metric, t, v)

    def buffer(self, stream: str, metric: str) -> GrowableSeries | None:
        """The buffer of (stream, metric), or None if no such sample arrived."""
        self.data.ingest(None)
        return self.series.get((stream, metric))

    def sample_count(self) -> int:
        self.data.ingest(None)
        return sum(series.n for series in self.series.values())

    def t_max(self) -> float:
        """The latest time drawn (queued records and streams held back not counted)."""
        latest = max((float(s.t[-1]) for s in self.series.values() if s.n), default=0.0)
        return latest if self.horizon is None else min(latest, self.horizon)

    def _update_horizon(self) -> None:
        """How far per-stream curves may be drawn: up to the newest total (see ``intervals``)."""
        self.horizon = None if self._finished else run_horizon(self.series)
        for plot in self.plots.values():
            plot.set_horizon(self.horizon)

    def _attach_missing(self, force: bool) -> bool:
        """Build missing plots and give new series their curves; True if anything was done.

        Unless ``force``, one call builds at most one plot (~15 ms) or attaches curves for at
        most ``ATTACH_BUDGET_S`` (~1.5 ms each, with its legend entry); the next ticks go on.
        """
        deadline = time.perf_counter() + ATTACH_BUDGET_S
        did = False
        for plot_id in list(self._missing):
            plot = self.plots.get(plot_id)
            if plot is None:
                if did and not force:
                    return True
                spec = next(self.data.specs[m] for _s, m in self._missing[plot_id])
                plot = self._add_plot(spec)
                did = True
                if not force:
                    return True  # its curves come with the next ticks
            pending = self._missing[plot_id]
            while pending:
                if did and not force and time.perf_counter() > deadline:
                    return True
                stream, metric = pending.pop(0)
                plot.attach(stream, metric, self.series[(stream, metric)])
                did = True
            del self._missing[plot_id]
        return did

    def _add_plot(self, spec: PlotSpec) -> LivePlot:
        self.placeholder.hide()
        plot = LivePlot(spec, stream_colors=self._stream_colors)
        plot.set_horizon(self.horizon)
        plot.userRangeChanged.connect(partial(self.set_follow, False))  # a zoom or pan
        plot.view_box.sigXRangeChanged.connect(partial(self._sync_x, plot))
        plot.cursorMoved.connect(partial(self._sync_cursor, plot))
        plot.legendToggled.connect(self._legend_toggled)
        if self.plots:  # start on the range the others show
            first = next(iter(self.plots.values()))
            plot.view_box.setXRange(*first.view_box.viewRange()[0], padding=0)
        self.plots[spec.id] = plot
        self.rows.add(plot)
        self._ranges_stale = True
        return plot

    # -- follow, ranges --------------------------------------------------------------------

    @property
    def follow(self) -> bool:
        return self._follow

    @property
    def window_s(self) -> float:
        return self._window_s

    def set_follow(self, on: bool) -> None:
        """Turn follow mode on (the latest window in view) or off (the range stays put)."""
        if on == self._follow:
            return
        self._follow = on
        with QSignalBlocker(self.follow_button):
            self.follow_button.setChecked(on)
        if on:
            self._apply_follow()
        self.followChanged.emit(on)

    def set_window(self, seconds: float) -> None:
        self._window_s = seconds
        index = self.window_combo.findData(seconds)
        if index >= 0:
            with QSignalBlocker(self.window_combo):
                self.window_combo.setCurrentIndex(index)
        if self._follow:
            self._apply_follow()

    def _window_chosen(self, index: int) -> None:
        self._window_s = float(self.window_combo.itemData(index))
        if not self._follow:
            self.set_follow(True)
        else:
            self._apply_follow()

    def show_all(self) -> None:
        """The whole run in view (follow off)."""
        self._show_all_when_drawn = False
        self.set_follow(False)
        self.refresh(force=True)
        t_max = self.t_max()
        self._set_x(0.0, max(t_max * 1.02, 1.0))
        for plot in self.plots.values():
            plot.fit_y(-np.inf, np.inf)

    def finish(self) -> None:
        """The run ended: if following, show the whole run once its last records are drawn.

        Done by the redraw ticks (records still queued, plots still to build), not at once:
        a run that ends must not freeze the window either.
        """
        self._finished = True
        self.data.changed = True  # the streams held back for their total are drawn now
        if self._follow:
            self._show_all_when_drawn = True

    def _follow_range(self) -> tuple[float, float]:
        t_max = self.t_max()
        high = max(t_max, 1.0)
        if t_max < self._window_s:
            high = max(high * 1.02, 1.0)
        return max(0.0, high - self._window_s), high

    def _apply_follow(self, plots: Iterable[LivePlot] | None = None) -> None:
        """Put the latest window in view on ``plots`` (all by default), y fitted to it."""
        low, high = self._follow_range()
        chosen = list(self.plots.values() if plots is None else plots)
        self._set_x(low, high, chosen)
        for plot in chosen:
            plot.fit_y(low, high)

    def _set_x(self, low: float, high: float, plots: Iterable[LivePlot] | None = None) -> None:
        self._syncing = True
        try:
            for plot in self.plots.values() if plots is None else plots:
                plot.view_box.setXRange(low, high, padding=0)
        finally:
            self._syncing = False

    def _sync_x(self, source: LivePlot, _view: object, rng: tuple[float, float]) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            for plot in self.plots.values():
                if plot is not source:
                    plot.view_box.setXRange(rng[0], rng[1], padding=0)
        finally:
            self._syncing = False

    def _sync_cursor(self, source: LivePlot, x: float | None) -> None:
        for plot in self.plots.values():
            if plot is source:
                continue
            if x is None:
                plot.hide_cursor()
            else:
                plot.show_cursor(x)

    def _legend_toggled(self) -> None:
        self._ranges_stale = True

    # -- drawing ---------------------------------------------------------------------------

    def _tick(self) -> None:
        """The timer: take records in and build plots every tick; redraw a plot only when
        ``REDRAW_GAP_S`` passed since the last one (a run reporting every 0.1 s would have a
        plot redrawn every tick: ten ~10 ms events a second on the GUI thread)."""
        now = time.monotonic()
        if self.refresh(draw=now - self._drawn_at >= REDRAW_GAP_S) and self._drew:
            self._drawn_at = now

    def refresh(self, force: bool = False, *, every_plot: bool = False, draw: bool = True) -> bool:
        """Take in queued records, then redraw what changed; True if anything was drawn.

        Queued records are taken in first, visible or not (all of them if ``force``, else
        within ``INGEST_BUDGET_S``). Drawing is skipped while hidden unless ``force``. A
        timer tick builds at most one missing plot or attaches new curves for at most
        ``ATTACH_BUDGET_S``, and if it did neither, redraws at most ``PLOTS_PER_TICK`` changed
        plots (round robin): each plot's repaint is then its own short event instead of one
        long one, which keeps the event loop's worst lag down. ``every_plot`` redraws every
        changed plot; ``force`` does everything at once (tests, ``show_all``).
        """
        self.data.ingest(None if force else INGEST_BUDGET_S)
        if not force and not self.isVisible():
            return False
        if self._show_all_when_drawn and not self.data.queued and not self._missing:
            self._show_all_when_drawn = False
            if self._follow:
                self.show_all()
                return True
        built = self._attach_missing(force) if self._missing else False
        if self.data.changed or self._ranges_stale:
            self.data.changed = self._ranges_stale = False
            self._update_horizon()
            for plot in self.plots.values():
                plot.mark_dirty()
        due = [plot for plot in self.plots.values() if plot.dirty]
        if not (force or every_plot):
            if built or not draw:
                due = []
            elif len(due) > PLOTS_PER_TICK:
                order = list(self.plots.values())
                due.sort(key=lambda p: (order.index(p) - self._next_plot) % len(order))
                due = due[:PLOTS_PER_TICK]
        self._drew = bool(due)
        for plot in due:
            plot.refresh()
        if due:
            order = list(self.plots.values())
            self._next_plot = (order.index(due[-1]) + 1) % len(order)
            if self._follow:
                self._apply_follow(due)
            self.redraws += 1
        return bool(due) or built

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Catch up at once, but one plot at a time like any tick: the tab's first paint shows
        # what was drawn before, each plot then updates in its own short event.
        QTimer.singleShot(0, self, self.refresh)  # dropped if self is deleted first
