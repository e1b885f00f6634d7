"""A job file's own fio logs in its run's detail (the ``fio_logs`` analysis): a plot per log and
direction (bandwidth, IOPS, total/completion/submission latency), a curve per job's log file,
and above them each file with its rows (and whether it was kept whole)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import QLabel, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from pairbench.services.fio_logs import LOGS_KIND, describe_logs, log_series, plot_title
from pairbench.ui.library.live_plots import plot_groups
from pairbench.ui.library.metric_plot import MetricPlot

TAB_TITLE = "fio logs"
_SHOWN = 8  # files named in the caption (the others: counted)


class FioLogsView(QWidget):
    """The logs' plots under a caption naming each file."""

    def __init__(self, payload: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fio_logs")
        lines = describe_logs(payload)
        more = f"\n… and {len(lines) - _SHOWN} more files" if len(lines) > _SHOWN + 1 else ""
        self.caption = QLabel("\n".join(lines[: _SHOWN if more else None]) + more)
        self.caption.setWordWrap(True)
        self.caption.setAccessibleName("fio's log files")
        page = QWidget()
        column = QVBoxLayout(page)
        colors: dict[str, int] = {}
        self.plots: list[MetricPlot] = []
        for metric, group in plot_groups(log_series(payload)).items():
            plot = MetricPlot(metric, group, "fio", stream_colors=colors)
            plot.getPlotItem().setTitle(plot_title(metric), size="10pt", color="#202020")
            plot.setAccessibleName(plot_title(metric))
            column.addWidget(plot)
            self.plots.append(plot)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(scroll, 1)


def show_logs_tab(
    tabs: QTabWidget, current: FioLogsView | None, analyses: Mapping[str, Any]
) -> FioLogsView | None:
    """Replace the run detail's logs tab (``current``) by one for ``analyses`` (after the
    Plots tab and the latency histogram's), or none when the run stored no logs."""
    if current is not None:
        tabs.removeTab(tabs.indexOf(current))
        current.deleteLater()
    payload = analyses.get(LOGS_KIND)
    if not isinstance(payload, Mapping):
        return None
    view = FioLogsView(payload)
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    tabs.insertTab(2 if "Latency histogram" in titles else 1, view, TAB_TITLE)
    return view
