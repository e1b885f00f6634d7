"""Burst credits of a stored run, in its detail: the stored analysis readable above the plots
(burst rate, baseline, burst time, bucket, refill; wrapped, never cut), the step and the
levels drawn on its throughput plot, and "Analyse burst credits" to run the analysis that
``pairbench analyze burst ID`` runs (``services.burst.analyze_stored_burst``), stored the
same way.

``step_headline`` is the headline of a run whose analysis found a step ("927 Mbit/s →
193 Mbit/s"): the Library's Result column and the detail's summary show it instead of the
run's mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.domain.units import format_bits
from pairbench.ui.library.metric_plot import MetricPlot
from pairbench.ui.run.burst_overlay import BASELINE_COLOR, BURST_COLOR, STEP_COLOR
from pairbench.ui.run.burst_panel import burst_analysis_rows, estimate_rows, headline, refill_text

KIND, REFILL_KIND = "burst", "burst_refill"
# Run ▸ Analyse burst credits (the run shown in the Library's detail, or the one selected),
# shown beside the Library's context-menu entry too.
ANALYSE_SHORTCUT = "Ctrl+Shift+B"
NAMES = ("Burst rate", "Baseline", "Burst time", "Bucket")
_COLORS = {"Burst rate": BURST_COLOR, "Baseline": BASELINE_COLOR}


def stored_estimate(analyses: Mapping[str, Mapping[str, Any]]) -> BurstEstimate | None:
    """The run's stored burst analysis (None when it has none or it cannot be read)."""
    data = analyses.get(KIND)
    if data is None:
        return None
    try:
        return BurstEstimate.from_json(dict(data))
    except (KeyError, TypeError, ValueError):
        return None


def has_step(e: BurstEstimate | None) -> bool:
    """True when the analysis found (confirmed) a step with both levels."""
    return e is not None and e.detected and e.burst_bps is not None and e.baseline_bps is not None


def step_headline(e: BurstEstimate) -> str:
    """``927 Mbit/s → 193 Mbit/s``: burst rate then baseline, each in its own unit."""
    return f"{format_bits(e.burst_bps)} → {format_bits(e.baseline_bps)}"


def step_tooltip(e: BurstEstimate) -> str:
    """The step in words, for a tooltip."""
    step = "—" if e.step_t is None else f"{e.step_t:.1f} s"
    return (
        f"Burst credits: {format_bits(e.burst_bps)} for {step}, then a baseline of "
        f"{format_bits(e.baseline_bps)} (the stored burst analysis)"
    )


class BurstMarks:
    """The step (a vertical line) and the burst and baseline levels on a stored run's
    throughput plot, in the plot's axis units (it draws values × ``plot.factor``)."""

    def __init__(self, plot: MetricPlot, e: BurstEstimate) -> None:
        assert e.step_t is not None and e.burst_bps is not None and e.baseline_bps is not None
        f = plot.factor
        dash = Qt.PenStyle.DashLine
        self.step_line = pg.InfiniteLine(
            pos=e.step_t, angle=90, movable=False, pen=pg.mkPen(STEP_COLOR, width=2)
        )
        self.burst_level = pg.PlotCurveItem(
            [e.start_t, e.step_t],
            [e.burst_bps * f, e.burst_bps * f],
            pen=pg.mkPen(BURST_COLOR, width=2.5, style=dash),
        )
        end = max(e.t, e.step_t)
        self.baseline_level = pg.PlotCurveItem(
            [e.step_t, end],
            [e.baseline_bps * f, e.baseline_bps * f],
            pen=pg.mkPen(BASELINE_COLOR, width=2.5, style=dash),
        )
        item = plot.getPlotItem()
        for mark in (self.step_line, self.burst_level, self.baseline_level):
            mark.setZValue(15)  # over the curves
            item.addItem(mark, ignoreBounds=True)


class BurstBox(QFrame):
    """The run's burst analysis above its plots, and the button that (re)runs it."""

    analyseRequested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("burst_box")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        title = QLabel("<b>Burst credits</b>")
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.analyse_button = QPushButton("Analyse burst credits")
        self.analyse_button.setObjectName("analyse_burst")
        self.analyse_button.setToolTip(
            "Find the burst rate, the step and the baseline in this run's total throughput "
            "(as pairbench analyze burst ID) and store them with the run"
        )
        self.analyse_button.clicked.connect(self.analyseRequested)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(10)
        self.values: dict[str, QLabel] = {}
        for i, name in enumerate(NAMES):
            label = QLabel(name)
            label.setStyleSheet(f"color: {_COLORS.get(name, '#555')};")
            value = QLabel("—")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setStyleSheet("font-weight: bold;")
            row, column = divmod(i, 2)
            self.grid.addWidget(label, row, column * 2)
            self.grid.addWidget(value, row, column * 2 + 1)
            self.grid.setColumnStretch(column * 2 + 1, 1)
            self.values[name] = value
        self.refill = QLabel()
        self.refill.setWordWrap(True)
        self.refill.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.analyse_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.headline)
        layout.addLayout(self.grid)
        layout.addWidget(self.refill)
        self.show_analyses({}, can_analyse=False)

    def show_analyses(
        self, analyses: Mapping[str, Mapping[str, Any]], *, can_analyse: bool
    ) -> BurstEstimate | None:
        """Show the run's stored burst analysis (and refill phase); the estimate shown."""
        e = stored_estimate(analyses)
        self.analyse_button.setEnabled(can_analyse)
        self.analyse_button.setText("Analyse again" if e is not None else "Analyse burst credits")
        if e is None:
            self.headline.setText(
                "Not analysed yet: Analyse burst credits finds the burst rate, the step and "
                "the baseline in this run's total throughput."
                if KIND not in analyses
                else "The stored analysis cannot be read by this version: analyse again."
            )
        elif e.state is BurstState.NO_STEP:
            self.headline.setText(
                f"No step: {format_bits(e.burst_bps)} throughout the run's {e.t - e.start_t:.0f} s"
            )
        else:
            self.headline.setText(headline(e))
        rows = dict(estimate_rows(e)) if e is not None else {}
        for name, label in self.values.items():
            label.setText(rows.get(name, "—"))
        self._grid_visible(bool(rows))
        lines = [refill_text(e)] if e is not None and refill_text(e) else []
        if REFILL_KIND in analyses:
            refill = burst_analysis_rows(REFILL_KIND, analyses[REFILL_KIND])
            lines.append("Refill phase: " + ", ".join(f"{k} {v}" for k, v in refill))
        self.refill.setText("\n".join(lines))
        self.refill.setVisible(bool(lines))
        return e

    def show_message(self, text: str) -> None:
        """A line in place of the headline (an analysis under way, or why it failed)."""
        self.headline.setText(text)

    def _grid_visible(self, on: bool) -> None:
        for i in range(self.grid.count()):
            item = self.grid.itemAt(i)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setVisible(on)

    def texts(self) -> dict[str, str]:
        """What is shown, by name (for tests and copying)."""
        shown = {name: label.text() for name, label in self.values.items()}
        return {"headline": self.headline.text(), "refill": self.refill.text(), **shown}
