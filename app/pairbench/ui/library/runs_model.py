"""A Qt table model over the library's runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from pairbench.domain import Run
from pairbench.domain.units import format_value

_KEY_METRICS = ("throughput_bps", "rtt_avg_ms", "latency_avg_us", "read_iops", "write_iops")
COLUMNS = ("ID", "Started", "Pair", "Tool", "Status", "Result", "Label")

_Index = QModelIndex | QPersistentModelIndex


def key_result(run: Run) -> str:
    """The run's headline number, formatted."""
    for name in _KEY_METRICS:
        if name in run.summary:
            return format_value(name, run.summary[name])
    return ""


class RunsTableModel(QAbstractTableModel):
    """Rows are runs, newest first."""

    def __init__(self) -> None:
        super().__init__()
        self._runs: list[Run] = []

    def set_runs(self, runs: list[Run]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def run_at(self, row: int) -> Run:
        return self._runs[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        run = self._runs[index.row()]
        column = index.column()
        if column == 0:
            return run.id
        if column == 1:
            return datetime.fromtimestamp(run.started_at).strftime("%Y-%m-%d %H:%M:%S")
        if column == 2:
            return run.spec.pair
        if column == 3:
            return run.spec.tool
        if column == 4:
            return run.status.value
        if column == 5:
            return key_result(run)
        return run.label
