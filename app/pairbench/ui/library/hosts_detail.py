"""A stored run's Hosts tab: its verdict with the evidence, the Hosts table (medians over the
run) and plots of the telemetry that tells what limited it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from pairbench.domain.diagnosis import Diagnosis
from pairbench.domain.telemetry import TELEMETRY_KIND, is_telemetry
from pairbench.services.run_browser import RunDetail, SeriesArrays
from pairbench.tools.targets import socket_proto
from pairbench.ui.library.live_plots import plot_groups
from pairbench.ui.library.metric_plot import MetricPlot
from pairbench.ui.run.hosts_panel import HostsPanel
from pairbench.ui.run.hosts_table import stored_figures

# The telemetry plotted, in this order, when the run has it.
PLOTTED = (
    "cpu_busy_percent",
    "cpu_softirq_percent",
    "proc_thread_max_percent",
    "proc_thread_wait_percent",
    "nic_rx_bps",
    "nic_tx_bps",
    "udp_rcvbuf_error_pps",
    "conn_rwnd_limited_percent",
    "conn_sndbuf_limited_percent",
    "tcp_retrans_pps",
    "disk_util_percent",
    "disk_queue_depth",
)


def split_series(
    series: Sequence[SeriesArrays],
) -> tuple[list[SeriesArrays], list[SeriesArrays]]:
    """(the tool's own series, the hosts' telemetry)."""
    tool = [s for s in series if not is_telemetry(s.stream)]
    return tool, [s for s in series if is_telemetry(s.stream)]


class HostsDetail(QWidget):
    """The verdict, the table and the telemetry plots of one stored run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.verdict = QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setStyleSheet("font-weight: bold;")
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.panel = HostsPanel()
        self.plots: list[MetricPlot] = []
        self._plots_box = QWidget()
        self._plots_layout = QVBoxLayout(self._plots_box)
        self._plots_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._plots_box)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(self.evidence)
        layout.addWidget(self.panel)
        layout.addWidget(scroll, 1)

    def show_detail(
        self, detail: RunDetail, analyses: Mapping[str, Mapping[str, Any]]
    ) -> Diagnosis:
        """Fill the tab for a stored run (its verdict: stored, else computed now); the verdict."""
        verdict = detail.verdict()
        _tool, telemetry = split_series(detail.series)
        run = detail.run
        self.show_run(verdict, telemetry, analyses, run.spec.tool, run.spec.params)
        return verdict

    def show_run(
        self,
        verdict: Diagnosis | None,
        telemetry: Sequence[SeriesArrays],
        analyses: Mapping[str, Mapping[str, Any]],
        tool: str,
        params: Mapping[str, str],
    ) -> None:
        """Fill the tab for a run with this verdict and telemetry."""
        self.verdict.setText(verdict.sentence() if verdict else "Not diagnosed")
        self.evidence.setText("\n".join(f"• {e}" for e in verdict.evidence[1:]) if verdict else "")
        self.evidence.setVisible(bool(verdict and len(verdict.evidence) > 1))
        self.panel.proto = socket_proto(tool, params)
        self.panel.show_figures(stored_figures(telemetry, analyses.get(TELEMETRY_KIND)))
        self._fill_plots(telemetry, tool)

    def _fill_plots(self, telemetry: Sequence[SeriesArrays], tool: str) -> None:
        while self._plots_layout.count():
            item = self._plots_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        groups = plot_groups([s for s in telemetry if s.metric in PLOTTED])
        colors: dict[str, int] = {}
        self.plots = []
        for metric in (m for m in PLOTTED if m in groups):
            plot = MetricPlot(metric, groups[metric], tool, stream_colors=colors)
            self.plots.append(plot)
            self._plots_layout.addWidget(plot)
        if not self.plots:
            note = "No host telemetry was stored with this run (an import, or an older run)."
            self._plots_layout.addWidget(QLabel(note))
        self._plots_layout.addStretch(1)
