"""The job in flight, each second: its IOPS, bandwidth and mean latency per direction in
figures, and the test's own figure (reads and writes) as a small live plot."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import Record
from pairbench.domain.metrics import metric_unit
from pairbench.domain.units import NO_VALUE, axis_label, format_value, range_scale
from pairbench.ui.storage.colors import legend_html

DIRECTIONS = ("read", "write")
COLORS = {"read": "#1f77b4", "write": "#ff7f0e"}
# The figures shown as numbers: (row title, metric suffix).
FIGURE_ROWS = (("IOPS", "iops"), ("Bandwidth", "bytes_per_s"), ("Mean latency", "lat_mean_us"))


class JobLive(QWidget):
    """Follows one job at a time (``start_job``); ``add_records`` as they come."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("storage_job")
        self.family = "iops"
        self.latest: dict[str, float] = {}  # the last second's figures, by metric
        self.series: dict[str, tuple[list[float], list[float]]] = {}
        self.title_label = QLabel("No job running")
        font = QFont(self.title_label.font())
        font.setBold(True)
        self.title_label.setFont(font)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel(""), 0, 0)
        for col, direction in enumerate(DIRECTIONS, start=1):
            grid.addWidget(QLabel(f"<b>{direction}</b>"), 0, col)
        self.cells: dict[str, QLabel] = {}
        for row, (title, suffix) in enumerate(FIGURE_ROWS, start=1):
            grid.addWidget(QLabel(title), row, 0)
            for col, direction in enumerate(DIRECTIONS, start=1):
                cell = QLabel(NO_VALUE)
                cell.setMinimumWidth(90)
                self.cells[f"{direction}_{suffix}"] = cell
                grid.addWidget(cell, row, col)
        self.plot = pg.PlotWidget(viewBox=pg.ViewBox(enableMenu=False))
        self.plot.setBackground("w")
        self.plot.setMinimumHeight(110)
        self.plot_item: pg.PlotItem = self.plot.getPlotItem()
        self.plot_item.hideButtons()
        self.plot_item.setMenuEnabled(False)
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.setPen(pg.mkPen("#444"))
            axis.setTextPen(pg.mkPen("#222"))
            axis.enableAutoSIPrefix(False)
        self.plot_item.getAxis("left").setWidth(70)
        self.curves = {
            d: self.plot_item.plot([], [], pen=pg.mkPen(COLORS[d], width=2), symbol="o",
                                   symbolSize=4, symbolBrush=COLORS[d], symbolPen=COLORS[d])
            for d in DIRECTIONS
        }  # fmt: skip
        self.legend_label = QLabel(legend_html([(d, COLORS[d]) for d in DIRECTIONS]))
        figures = QVBoxLayout()
        figures.addLayout(grid)
        figures.addWidget(self.legend_label)
        figures.addStretch(1)
        self.body = QWidget()  # hidden between suites: the plots below take the room
        body = QHBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(figures)
        body.addWidget(self.plot, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title_label)
        layout.addWidget(self.body, 1)
        self.start_job("", "iops")

    def start_job(self, title: str, family: str) -> None:
        """A new job: clear its figures and plot; ``family`` is what the plot draws
        (``iops``, ``bytes_per_s``, ``lat_mean_us``)."""
        self.family = family
        self.latest = {}
        self.series = {d: ([], []) for d in DIRECTIONS}
        self.title_label.setText(f"Current job: {title}" if title else "No job running")
        for cell in self.cells.values():
            cell.setText(NO_VALUE)
        for curve in self.curves.values():
            curve.setData([], [])
        self.body.setVisible(bool(title))
        # Between suites only the title stays: the plots below take the room.
        vertical = QSizePolicy.Policy.Preferred if title else QSizePolicy.Policy.Maximum
        self.setSizePolicy(QSizePolicy.Policy.Preferred, vertical)
        self.plot_item.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.plot_item.enableAutoRange()
        self._label_axis()

    def _label_axis(self, values: list[float] | None = None) -> None:
        metric = f"write_{self.family}"
        name = next((title for title, suffix in FIGURE_ROWS if suffix == self.family), metric)
        scale = range_scale(metric_unit(metric), values or [])
        self.plot_item.getAxis("left").setScale(scale.factor)
        self.plot_item.setLabel("left", axis_label(name, scale))
        self.plot_item.setLabel("bottom", "Seconds into the job (s)")

    def add_records(self, records: list[Record]) -> None:
        """The job's per-second figures (the ``sum`` stream: every thread together)."""
        changed = False
        for record in records:
            if record.stream != "sum":
                continue
            values = dict(zip(record.metrics, record.values, strict=True))
            self.latest.update(values)
            for direction in DIRECTIONS:
                value = values.get(f"{direction}_{self.family}")
                if value is not None:
                    ts, vs = self.series[direction]
                    ts.append(record.t)
                    vs.append(value)
                    changed = True
        for metric, cell in self.cells.items():
            cell.setText(format_value(metric, self.latest.get(metric)))
        if changed:
            every = [v for _t, vs in self.series.values() for v in vs]
            for direction, (ts, vs) in self.series.items():
                self.curves[direction].setData(ts, vs)
            self._label_axis(every)
