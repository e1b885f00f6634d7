"""A Qt table model over a page-wise loaded, library-sorted list of runs (labels editable)."""

from __future__ import annotations

import dataclasses
from difflib import SequenceMatcher
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain import Run, RunStatus
from pairbench.domain.host_text import format_tags
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import format_count, format_value
from pairbench.services.runs import SortKey
from pairbench.services.team_browser import Published
from pairbench.ui.library.burst_box import step_headline, step_tooltip

_KEY_METRICS = ("throughput_bps", "rtt_avg_ms", "latency_avg_us", "ops_per_s")
COLUMNS = ("ID", "Started", "Pair", "Tool", "Label", "Result", "Status", "Tags")
ID, STARTED, PAIR, TOOL, LABEL, RESULT, STATUS, TAGS = range(len(COLUMNS))
RAN_BY = len(COLUMNS)  # the team library's runs only: who ran each
TEAM_COLUMNS = (*COLUMNS, "Ran by")
RUN_ROLE = Qt.ItemDataRole.UserRole + 1  # the Run of a row

STATUS_COLORS = {
    RunStatus.RUNNING: QColor("#1f6feb"),
    RunStatus.FAILED: QColor("#b3261e"),
    RunStatus.CANCELLED: QColor("#9a6700"),
    RunStatus.INTERRUPTED: QColor("#9a6700"),
    RunStatus.STALLED: QColor("#b3261e"),
}

_Index = QModelIndex | QPersistentModelIndex


def key_result(run: Run, step: BurstEstimate | None = None) -> str:
    """The run's headline figure(s), formatted: throughput (and loss), RTT, latency or IOPS;
    burst → baseline when its stored burst analysis found a step (``step``)."""
    if step is not None:
        return step_headline(step)
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


_DISPLAY = Qt.ItemDataRole.DisplayRole
_EDIT = Qt.ItemDataRole.EditRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
_ANSWERED_ROLES = frozenset(
    (_DISPLAY, _EDIT, _FOREGROUND, _ALIGNMENT, Qt.ItemDataRole.ToolTipRole, RUN_ROLE)
)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

# The sortable columns and the library's sort key for each (sorting happens in SQL).
SORT_KEYS: dict[int, SortKey] = {
    ID: "id",
    STARTED: "started",
    PAIR: "pair",
    TOOL: "tool",
    LABEL: "label",
    STATUS: "status",
}


class RunsTableModel(QAbstractTableModel):
    """The loaded rows of a run list, in the library's order: a page at first, more pages as
    the view scrolls (``moreWanted``), sorted by the library (``sortWanted``).

    The model does no I/O: its owner loads pages and hands them in. ``sync`` applies a fresh
    copy of the loaded rows as row inserts, removals and changes, so a refresh while a run
    records costs the GUI thread only the rows that changed.
    """

    labelEdited = Signal(int, str)
    moreWanted = Signal(int)  # the offset of the next page
    sortWanted = Signal(str, bool)  # sort key, descending

    def __init__(self) -> None:
        super().__init__()
        self._runs: list[Run] = []
        self._texts: dict[int, tuple[Run, tuple[Any, ...]]] = {}  # run id → (run, cell texts)
        self._total = 0
        self._fetching = False
        self.sort_key: SortKey = "started"
        self.descending = True
        self.team: dict[int, Published] | None = None  # the team library's runs: their origin
        self._touched: list[int] = []  # rows the last sync inserted or changed
        self.bursts: dict[int, BurstEstimate] = {}  # runs whose burst analysis found a step
        self._burst_changed: set[int] = set()

    # -- what the owner hands in ----------------------------------------------------------

    def set_team(self, team: bool) -> None:
        """List the team library's runs (read-only, with "Ran by") or this computer's: the
        rows go, the next page fills the table."""
        self.beginResetModel()
        self.team = {} if team else None
        self._runs = []
        self._texts.clear()
        self._total = 0
        self._fetching = False
        self.endResetModel()

    def add_origins(self, origins: dict[int, Published]) -> None:
        """Where the team runs of a page come from (before the page is handed in)."""
        if self.team is not None:
            self.team.update(origins)

    def add_bursts(self, bursts: dict[int, BurstEstimate], run_ids: list[int]) -> None:
        """The burst steps found among the runs ``run_ids`` of a page (before the page is
        handed in): their Result shows burst → baseline."""
        for run_id in run_ids:
            new = bursts.get(run_id)
            if self.bursts.get(run_id) != new:
                self._burst_changed.add(run_id)
                if new is None:
                    self.bursts.pop(run_id, None)
                else:
                    self.bursts[run_id] = new

    def origin_of(self, run_id: int) -> Published | None:
        """Where a team run comes from (None for this computer's runs)."""
        return None if self.team is None else self.team.get(run_id)

    def set_runs(self, runs: list[Run], total: int | None = None) -> None:
        """Replace every row (a new filter or order)."""
        self.beginResetModel()
        self._runs = list(runs)
        self._texts.clear()
        self._burst_changed.clear()
        self._total = len(runs) if total is None else max(total, len(runs))
        self._fetching = False
        self.endResetModel()

    def append_page(self, offset: int, runs: list[Run], total: int) -> None:
        """Rows of the page that starts at ``offset`` (a stale page is ignored)."""
        self._fetching = False
        if offset != len(self._runs):
            return
        self._total = max(total, offset + len(runs))
        if runs:
            self.beginInsertRows(QModelIndex(), offset, offset + len(runs) - 1)
            self._runs.extend(runs)
            self.endInsertRows()

    def sync(self, runs: list[Run], total: int) -> list[int]:
        """Make the loaded rows equal ``runs`` (the same window, read again) by the smallest
        set of row removals, insertions and changes; the ids of the rows inserted or changed."""
        old_ids = [run.id for run in self._runs]
        new_ids = [run.id for run in runs]
        self._total = max(total, len(runs))
        self._touched = []
        if old_ids == new_ids:
            self._changed_rows(runs)
            return self._touched
        matcher = SequenceMatcher(a=old_ids, b=new_ids, autojunk=False)
        # Back to front, so the row numbers of what is still to do stay valid.
        for tag, a0, a1, b0, b1 in reversed(matcher.get_opcodes()):
            if tag == "equal":
                self._changed_rows(runs[b0:b1], first=a0)
                continue
            if tag in ("replace", "delete"):
                self.beginRemoveRows(QModelIndex(), a0, a1 - 1)
                del self._runs[a0:a1]
                self.endRemoveRows()
            if tag in ("replace", "insert"):
                self.beginInsertRows(QModelIndex(), a0, a0 + (b1 - b0) - 1)
                self._runs[a0:a0] = runs[b0:b1]
                self.endInsertRows()
                self._touched += [run.id for run in runs[b0:b1]]
        return self._touched

    def _changed_rows(self, runs: list[Run], first: int = 0) -> None:
        """Replace rows ``first``.. with ``runs`` (same ids), signalling the ones that differ."""
        last_column = self.columnCount() - 1
        for offset, run in enumerate(runs):
            row = first + offset
            if self._runs[row] != run or run.id in self._burst_changed:
                self._burst_changed.discard(run.id)
                self._texts.pop(run.id, None)
                self._runs[row] = run
                self._touched.append(run.id)
                self.dataChanged.emit(self.index(row, 0), self.index(row, last_column))

    # -- reading -----------------------------------------------------------------------------

    def runs(self) -> list[Run]:
        return list(self._runs)

    @property
    def total(self) -> int:
        """How many runs match the filters (loaded or not)."""
        return self._total

    def run_at(self, row: int) -> Run:
        return self._runs[row]

    def row_of(self, run_id: int) -> int | None:
        return next((i for i, run in enumerate(self._runs) if run.id == run_id), None)

    def update_run(self, run: Run) -> None:
        """Replace the row of this run (same id) with the new value."""
        row = self.row_of(run.id)
        if row is not None:
            self._changed_rows([run], first=row)

    # -- Qt's model interface --------------------------------------------------------------

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and len(self._runs) < self._total

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not parent.isValid() and not self._fetching and len(self._runs) < self._total:
            self._fetching = True
            self.moreWanted.emit(len(self._runs))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = SORT_KEYS.get(column)
        if key is None:  # Result and Tags: no order in SQL; keep the current one
            return
        descending = order == Qt.SortOrder.DescendingOrder
        if (key, descending) != (self.sort_key, self.descending):
            self.sort_key, self.descending = key, descending
            self.sortWanted.emit(key, descending)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS) + (self.team is not None)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return TEAM_COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section not in SORT_KEYS:
            return "This column does not sort: sort by ID, Started, Pair, Tool, Label or Status"
        if role == Qt.ItemDataRole.ToolTipRole and section == ID and self.team is not None:
            return "The run's id in the team library (not this computer's id)"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == LABEL and self.team is None:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A repaint asks each visible cell for a dozen roles: the ones without an answer
        # return at once.
        if role not in _ANSWERED_ROLES or not index.isValid():
            return None
        run = self._runs[index.row()]
        column = index.column()
        if role in (_DISPLAY, _EDIT):
            return self._row_texts(run)[column]
        if role == RUN_ROLE:
            return run
        if role == _FOREGROUND:
            return STATUS_COLORS.get(run.status) if column == STATUS else None
        if role == _ALIGNMENT:
            return _RIGHT if column in (ID, RESULT) else None
        if column == RESULT:  # the tooltip
            step = self.bursts.get(run.id)
            text = _summary_tooltip(run)
            return (step_tooltip(step) + "\n" + text if step is not None else text) or None
        if column == STATUS:
            return run.error or None
        if column == LABEL:
            if self.team is not None:
                return "Double-click the run to open it; team runs are read-only"
            return "Double-click the run to open it; F2 or a click on a selected label edits it"
        if column == RAN_BY and self.team is not None and run.id in self.team:
            origin = self.team[run.id]
            return f"{origin.ran_by} on {origin.origin}"
        return None

    def _row_texts(self, run: Run) -> tuple[Any, ...]:
        """A row's cell texts, formatted once per version of the run (a repaint after a
        refresh asks for every visible cell again)."""
        cached = self._texts.get(run.id)
        if cached is None or cached[0] is not run:
            if len(self._texts) > 4 * max(len(self._runs), 256):
                self._texts.clear()  # rows long gone
            texts = tuple(self._text(run, column) for column in range(len(COLUMNS)))
            step = self.bursts.get(run.id)
            if step is not None:
                texts = (*texts[:RESULT], key_result(run, step), *texts[RESULT + 1 :])
            if self.team is not None:
                origin = self.team.get(run.id)
                texts += (origin.ran_by if origin else "",)
            cached = (run, texts)
            self._texts[run.id] = cached
        return cached[1]

    @staticmethod
    def _text(run: Run, column: int) -> Any:
        if column == ID:
            return run.id
        if column == STARTED:
            return time_text(run.started_at)
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

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != LABEL or role != Qt.ItemDataRole.EditRole:
            return False
        if self.team is not None:
            return False  # team runs are read-only
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
