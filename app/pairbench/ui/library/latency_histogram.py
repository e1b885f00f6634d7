"""A fio run's completion-latency histogram in its detail (the ``fio_histogram`` analysis,
from json+): I/Os per fio bucket over a log-scale latency axis, one outline per direction,
with its p50/p99/p99.9/p99.99 marked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

# isort: split
import pyqtgraph as pg  # after PySide6 (DESIGN §2)

from pairbench.domain.units import format_value
from pairbench.services.fio_histogram import (
    HISTOGRAM_KIND,
    PERCENTILE_LABELS,
    DirectionHistogram,
    directions,
)

TAB_TITLE = "Latency histogram"
_COLORS = {"read": "#1f77b4", "write": "#ff7f0e"}
_OTHER = "#2ca02c"
_LABEL_AT = {"p50": 0.96, "p99": 0.9, "p999": 0.84, "p9999": 0.78}  # staggered: no overlap
_STYLES = {"p50": Qt.PenStyle.DotLine, "p99": Qt.PenStyle.DashLine}


def _us(value: float) -> str:
    return format_value("read_lat_p99_us", value)


def latency_ticks(low_us: float, high_us: float) -> list[tuple[float, str]]:
    """Ticks of the log-scale latency axis between ``low_us`` and ``high_us``: 1, 2 and 5
    times each power of ten, at log10 of the value (pyqtgraph's log mode), named in µs/ms/s."""
    ticks: list[tuple[float, str]] = []
    if not (0 < low_us < high_us):
        return ticks
    for exponent in range(int(np.floor(np.log10(low_us))), int(np.ceil(np.log10(high_us))) + 1):
        for step in (1, 2, 5):
            value = step * 10.0**exponent
            if low_us <= value <= high_us:
                ticks.append((float(np.log10(value)), _us(value)))
    return ticks


def outline(one: DirectionHistogram) -> tuple[np.ndarray, np.ndarray]:
    """The histogram as a closed step outline (x in µs, y in I/Os): each bucket a bar from
    its low to its high latency, down to zero between buckets that do not touch."""
    low = np.asarray(one.low_us)
    high = np.asarray(one.high_us)
    counts = np.asarray(one.counts)
    zeros = np.zeros_like(counts)
    x = np.column_stack((low, low, high, high)).ravel()
    y = np.column_stack((zeros, counts, counts, zeros)).ravel()
    return x, y


class LatencyHistogram(QWidget):
    """The histogram plot and, above it, each direction's I/Os and percentiles."""

    def __init__(self, payload: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("latency_histogram")
        self.histograms = directions(payload)
        self.caption = QLabel(self._caption())
        self.caption.setWordWrap(True)
        self.caption.setAccessibleName("Latency percentiles")
        self.plot = pg.PlotWidget(background="w")
        self.plot.setAccessibleName(TAB_TITLE)
        item = self.plot.getPlotItem()
        item.setTitle("Completion latency (fio json+ buckets)", size="10pt", color="#202020")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLogMode(x=True, y=False)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen("#606060")
            item.getAxis(axis).setTextPen("#303030")
        item.setLabel("left", "I/Os per bucket")
        item.setLabel("bottom", "completion latency (log scale)")
        if len(self.histograms) > 1:
            item.addLegend(offset=(10, 10), labelTextColor="#202020")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.markers: dict[tuple[str, str], pg.InfiniteLine] = {}
        for one in self.histograms:
            color = _COLORS.get(one.direction, _OTHER)
            x, y = outline(one)
            fill = pg.mkColor(color)
            fill.setAlpha(70)
            self.curves[one.direction] = item.plot(
                x, y, pen=pg.mkPen(color, width=1.4), fillLevel=0.0, brush=fill, name=one.direction
            )
            for key, value in one.percentiles_us.items():
                if key not in PERCENTILE_LABELS or value <= 0:
                    continue
                line = pg.InfiniteLine(
                    pos=float(np.log10(value)),
                    angle=90,
                    pen=pg.mkPen(color, width=1, style=_STYLES.get(key, Qt.PenStyle.DashDotLine)),
                    label=PERCENTILE_LABELS[key],
                    labelOpts={"position": _LABEL_AT.get(key, 0.7), "color": color},
                )
                item.addItem(line)
                self.markers[(one.direction, key)] = line
        if self.histograms:
            low = min(one.low_us[0] for one in self.histograms)
            high = max(one.high_us[-1] for one in self.histograms)
            item.getAxis("bottom").setTicks([latency_ticks(low / 1.2, high * 1.2), []])
        item.enableAutoRange()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot, 1)

    def _caption(self) -> str:
        if not self.histograms:
            return "The stored histogram has no buckets."
        parts = []
        for one in self.histograms:
            shown = ", ".join(
                f"{label} {_us(one.percentiles_us[key])}"
                for key, label in PERCENTILE_LABELS.items()
                if key in one.percentiles_us
            )
            parts.append(f"<b>{one.direction}</b>: {one.ios:,.0f} I/Os; {shown}")
        return "<br>".join(parts)


def show_histogram_tab(
    tabs: QTabWidget, current: LatencyHistogram | None, analyses: Mapping[str, Any]
) -> LatencyHistogram | None:
    """Replace the run detail's histogram tab (``current``) by one for ``analyses`` (after
    the Plots tab), or none when the run has no histogram; the new tab or None."""
    if current is not None:
        tabs.removeTab(tabs.indexOf(current))
        current.deleteLater()
    payload = analyses.get(HISTOGRAM_KIND)
    if not isinstance(payload, Mapping):
        return None
    view = LatencyHistogram(payload)
    tabs.insertTab(1, view, TAB_TITLE)
    return view
