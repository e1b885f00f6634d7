"""A plot of values per round (the storage suite's convergence and measurement window): a
title, rounds on x, the figure in its scaled unit on y, and the legend under the plot."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from pairbench.domain.units import Scale, axis_label, range_scale
from pairbench.ui.storage.colors import legend_html

AXIS_PEN = "#444"
TEXT_PEN = "#222"


class RoundPlot(QWidget):
    """A white plot with an integer round axis and a y axis scaled to its unit."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_label = QLabel(title)
        font = QFont(self.title_label.font())
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setWordWrap(True)  # "Steady-state convergence — …" fits a narrow plot
        self.widget = pg.PlotWidget(viewBox=pg.ViewBox(enableMenu=False))
        self.widget.setBackground("w")
        self.widget.setMinimumHeight(180)
        self.plot_item: pg.PlotItem = self.widget.getPlotItem()
        self.plot_item.hideButtons()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.showGrid(x=False, y=True, alpha=0.15)
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.setPen(pg.mkPen(AXIS_PEN))
            axis.setTextPen(pg.mkPen(TEXT_PEN))
            axis.enableAutoSIPrefix(False)
        self.plot_item.getAxis("left").setWidth(70)
        self.plot_item.setLabel("bottom", "Round")
        self.legend_label = QLabel("")
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setWordWrap(True)
        self.legend_label.setObjectName("legend")
        self.note_label = QLabel("")
        self.note_label.setStyleSheet("color: #555;")
        self.note_label.setWordWrap(True)
        self.scale = Scale(1.0, "")
        self.legend_names: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title_label)
        layout.addWidget(self.widget, 1)
        layout.addWidget(self.legend_label)
        layout.addWidget(self.note_label)

    def clear(self) -> None:
        self.plot_item.clear()

    def set_legend(self, entries: list[tuple[str, str]]) -> None:
        """The legend under the plot: (name, colour) per entry."""
        self.legend_names = [name for name, _color in entries]
        self.legend_label.setText(legend_html(entries))

    def set_y(
        self, label: str, unit: str, values: Iterable[float], *, from_zero: bool = True
    ) -> Scale:
        """Scale the y axis for ``values`` (in ``unit``) and name it ``label (unit)``; the
        range starts at zero unless ``from_zero`` is False (then it hugs the values)."""
        finite = [v for v in values if math.isfinite(v)]
        scale = range_scale(unit, finite)
        self.scale = scale
        axis = self.plot_item.getAxis("left")
        axis.setScale(scale.factor)
        self.plot_item.setLabel("left", axis_label(label, scale))
        if finite:
            low, high = min(finite), max(finite)
            span = (high - low) or abs(high) or 1.0
            if from_zero:
                low = min(0.0, low)
                span = (high - low) or 1.0
            else:
                low -= span * 0.08
            self.plot_item.setYRange(low, high + span * 0.08, padding=0)
        return scale

    def set_rounds(self, first: int, last: int) -> None:
        """Show rounds ``first``..``last`` with a tick per round (a few when there are many)."""
        last = max(last, first)
        step = max(1, math.ceil((last - first + 1) / 12))
        ticks = [(float(r), str(r)) for r in range(first, last + 1, step)]
        self.plot_item.getAxis("bottom").setTicks([ticks])
        self.plot_item.setXRange(first - 0.5, last + 0.5, padding=0)

    def add_line(
        self,
        rounds: list[float],
        values: list[float],
        color: str,
        *,
        width: float = 2.0,
        style: Qt.PenStyle = Qt.PenStyle.SolidLine,
        symbol: str | None = None,
    ) -> pg.PlotDataItem:
        """A line (with points when ``symbol``); values in the base unit."""
        pen = pg.mkPen(color=color, width=width, style=style)
        pen.setCosmetic(True)
        options: dict[str, object] = {"pen": pen}
        if symbol:
            options.update(symbol=symbol, symbolSize=7, symbolBrush=color, symbolPen=color)
        item = pg.PlotDataItem(rounds, values, **options)
        self.plot_item.addItem(item)
        return item

    def add_band(self, rounds: list[float], low: float, high: float, rgba: str) -> None:
        """A shaded band from ``low`` to ``high`` across ``rounds``' span."""
        lower = pg.PlotDataItem(rounds, [low] * len(rounds), pen=pg.mkPen(None))
        upper = pg.PlotDataItem(rounds, [high] * len(rounds), pen=pg.mkPen(None))
        fill = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(rgba))
        fill.setZValue(-10)
        self.plot_item.addItem(fill)
