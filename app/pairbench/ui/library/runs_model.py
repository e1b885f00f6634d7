"""A Qt table model over the library's runs (the label is editable in place)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from pairbench.domain import Run, RunStatus
from pairbench.domain.host_text import format_tags
from pairbench.domain.units import format_count, format_value

_KEY_METRICS = ("throughput_bps", "rtt_avg_ms", "latency_avg_us", "ops_per_s")
COLUMNS = ("ID", "Started", "Pair", "Tool", "Label", "Result", "Status", "Tags")
ID, STARTED, PAIR, TOOL, LABEL, RESULT, STATUS, TAGS = range(len(COLUMNS))
RUN_ROLE = Qt.ItemDataRole.UserRole + 1  # the Run of a row
SORT_ROLE = Qt.ItemDataRole.UserRole + 2  # a value that sorts the column naturally

STATUS_COLORS = {
    RunStatus.RUNNING: QColor("#1f6feb"),
    RunStatus.FAILED: QColor("#b3261e"),
    RunStatus.CANCELLED: QColor("#9a6700"),
    RunStatus.INTERRUPTED: QColor("#9a6700"),
    RunStatus.STALLED: QColor("#b3261e"),
}

_Index = QModelIndex | QPersistentModelIndex


def key_result(run: Run) -> str:
    """The run's headline figure(s), formatted: throughput (and loss), RTT, latency or IOPS."""
    summary = run.summary
    if "read_iops" in summary or "write_iops" in summary:
        read, write = summary.get("read_iops"), summary.get("write_iops")
        if read and write:
            return f"read {format_count(read)}, write {format_count(write)} IOPS"
        return f"{format_count(read or write or 0.0)} {'read' if read else 'write'} IOPS"
    for name in _KEY_METRICS:
        if name in summary:
            text = format_value(name, summary[name])
            if "lost_percent" in summary:
                text += f", {format_value('lost_percent', summary['lost_percent'])} loss"
            return text
    return ""


def _summary_tooltip(run: Run) -> str:
    return "\n".join(f"{name}: {format_value(name, value)}" for name, value in run.summary.items())


class RunsTableModel(QAbstractTableModel):
    """Rows are runs in the order given (newest first from the library)."""

    labelEdited = Signal(int, str)

    def __init__(self) -> None:
        super().__init__()
        self._runs: list[Run] = []

    def set_runs(self, runs: list[Run]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def runs(self) -> list[Run]:
        return list(self._runs)

    def run_at(self, row: int) -> Run:
        return self._runs[row]

    def row_of(self, run_id: int) -> int | None:
        return next((i for i, run in enumerate(self._runs) if run.id == run_id), None)

    def update_run(self, run: Run) -> None:
        """Replace the row of this run (same id) with the new value."""
        row = self.row_of(run.id)
        if row is None:
            return
        self._runs[row] = run
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

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

    def flags(self, index: _Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == LABEL:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        run = self._runs[index.row()]
        column = index.column()
        if role == RUN_ROLE:
            return run
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(run, column)
        if role == SORT_ROLE:
            return self._sort_key(run, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == RESULT:
                return _summary_tooltip(run) or None
            if column == STATUS and run.error:
                return run.error
            if column == LABEL:
                return "Double-click the run to open it; F2 or a click on a selected label edits it"
            return None
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return STATUS_COLORS.get(run.status)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (ID, RESULT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _text(run: Run, column: int) -> Any:
        if column == ID:
            return run.id
        if column == STARTED:
            return datetime.fromtimestamp(run.started_at).strftime("%Y-%m-%d %H:%M:%S")
        if column == PAIR:
            return run.spec.pair
        if column == TOOL:
            return run.spec.tool
        if column == LABEL:
            return run.label
        if column == RESULT:
            return key_result(run)
        if column == STATUS:
            return run.status.value
        return format_tags(run.tags)

    @staticmethod
    def _sort_key(run: Run, column: int) -> Any:
        if column == ID:
            return run.id
        if column == STARTED:
            return run.started_at
        if column == RESULT:
            for name in (*_KEY_METRICS, "read_iops", "write_iops"):
                if name in run.summary:
                    return float(run.summary[name])
            return float("-inf")
        return str(RunsTableModel._text(run, column)).casefold()

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != LABEL or role != Qt.ItemDataRole.EditRole:
            return False
        run = self._runs[index.row()]
        label = str(value).strip()
        if label == run.label:
            return False
        self.update_run(with_label(run, label))
        self.labelEdited.emit(run.id, label)
        return True


def with_label(run: Run, label: str) -> Run:
    """The run with another label (in its spec too)."""
    return dataclasses.replace(run, label=label, spec=dataclasses.replace(run.spec, label=label))
