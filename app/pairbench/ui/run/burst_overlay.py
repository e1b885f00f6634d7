"""The burst-credit estimate drawn on a live throughput plot: the step and the two levels.

A vertical line at the step (dashed while only suspected, solid once confirmed), the burst
rate as a (dashed) level from the run's start to the step and the baseline from the step to
the latest interval. Items are in the plot's data units (bit/s; the axis scales them) and
take no part in the plot's range (``ignoreBounds``), so Follow and the y fit are unchanged.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.ui.plotting.live_plot import LivePlot

STEP_COLOR = "#c62828"
# Not in the streams' palette, so the levels never pass for a stream's curve.
BURST_COLOR = "#c2185b"
BASELINE_COLOR = "#00796b"


class BurstOverlay:
    """Step line and level segments on one ``LivePlot``; ``show(estimate)`` updates them."""

    def __init__(self, plot: LivePlot) -> None:
        self.plot = plot
        self.step_line = pg.InfiniteLine(angle=90, movable=False)
        dash = Qt.PenStyle.DashLine
        self.burst_level = pg.PlotCurveItem(pen=pg.mkPen(BURST_COLOR, width=2.5, style=dash))
        self.baseline_level = pg.PlotCurveItem(pen=pg.mkPen(BASELINE_COLOR, width=2.5, style=dash))
        for item in (self.step_line, self.burst_level, self.baseline_level):
            item.setZValue(15)  # over the curves, under the crosshair
            item.setVisible(False)
            plot.plot_item.addItem(item, ignoreBounds=True)
        self.state: BurstState | None = None

    def show(self, estimate: BurstEstimate | None) -> None:
        """Draw what ``estimate`` knows; nothing before a step."""
        e = estimate
        has_step = (
            e is not None
            and e.state is not BurstState.NO_STEP
            and e.step_t is not None
            and e.burst_bps is not None
            and e.baseline_bps is not None
        )
        self.state = e.state if e is not None else None
        for item in (self.step_line, self.burst_level, self.baseline_level):
            item.setVisible(has_step)
        if not has_step or e is None:
            return
        assert e.step_t is not None and e.burst_bps is not None and e.baseline_bps is not None
        style = Qt.PenStyle.SolidLine if e.state is BurstState.CONFIRMED else Qt.PenStyle.DashLine
        pen = pg.mkPen(STEP_COLOR, width=2, style=style)
        pen.setCosmetic(True)
        self.step_line.setPen(pen)
        self.step_line.setValue(e.step_t)
        self.burst_level.setData([e.start_t, e.step_t], [e.burst_bps, e.burst_bps])
        end = max(e.t, e.step_t)
        self.baseline_level.setData([e.step_t, end], [e.baseline_bps, e.baseline_bps])

    @property
    def step_dashed(self) -> bool:
        """True while the drawn step is only suspected."""
        return bool(self.step_line.pen.style() == Qt.PenStyle.DashLine)
