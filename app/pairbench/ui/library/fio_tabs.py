"""The tabs a fio run's detail adds after its plots, each when the run stored what it shows:
the latency histogram (json+), the job file's own logs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QTabWidget

from pairbench.ui.library.fio_logs_view import FioLogsView, show_logs_tab
from pairbench.ui.library.latency_histogram import LatencyHistogram, show_histogram_tab


@dataclass
class FioTabs:
    """The fio tabs of one run detail (None: not shown)."""

    histogram: LatencyHistogram | None = None
    logs: FioLogsView | None = None

    def show(self, tabs: QTabWidget, analyses: Mapping[str, Any]) -> None:
        """The tabs for a run's ``analyses`` (none for an empty mapping)."""
        self.histogram = show_histogram_tab(tabs, self.histogram, analyses)
        self.logs = show_logs_tab(tabs, self.logs, analyses)
