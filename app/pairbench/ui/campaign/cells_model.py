"""The campaign's matrix as a table model: a row per pair, a column per test and axis values
(``Cell.column``); each cell its status, n, mean ± 95 % CI and CV, coloured by progress, the
running ones highlighted. Texts are made once per read of the campaign, not per paint."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from pairbench.domain.units import format_value
from pairbench.services.campaigns import CampaignShown, CellRow

COLORS = {
    "pending": "#f2f2f2",
    "open": "#fff1c2",
    "done": "#d9f0dd",
    "skipped": "#f4d4d4",
    "running": "#cfe2ff",
}
MARKS = {"pending": "pending", "open": "open …", "done": "done ✓", "skipped": "skipped ✗"}
_Index = QModelIndex | QPersistentModelIndex
MAX_SINGLE_UPDATES = 16  # more changed cells: one update of the whole grid


@dataclass(frozen=True, slots=True)
class CellView:
    """What one grid cell shows."""

    row: CellRow
    status: str  # the row's status, or "running"
    text: str
    tip: str


def cell_text(row: CellRow, running: bool) -> str:
    """``done ✓ n=2`` / ``0.0405 ms ± 0.00635`` / ``CV 1.7 %``."""
    status = "running ▶" if running else MARKS.get(row.status, row.status)
    lines = [f"{status}  n={row.verdict.n}"]
    stats = row.verdict.stats
    if stats is not None:
        half = stats.ci.half_width if stats.ci is not None else None
        lines.append(format_value(row.cell.metric, stats.mean, half))
        lines.append(f"CV {stats.cv * 100:.1f} %" if stats.cv is not None else "CV —")
    return "\n".join(lines)


def cell_tip(row: CellRow) -> str:
    cell = row.cell
    params = ", ".join(f"{k}={v}" for k, v in cell.params.items())
    lines = [cell.title, f"{cell.tool} {params}", f"metric: {cell.metric}"]
    if row.reason:
        lines.append(f"{row.status}: {row.reason}")
    if row.failures:
        lines.append(f"{row.failures} failed run(s)")
    for discard in row.verdict.discarded:
        shown = format_value(cell.metric, discard.value)
        lines.append(f"discarded {shown}: {discard.reason}")
    if row.run_ids:
        lines.append("runs " + ", ".join(str(r) for r in row.run_ids))
    if row.suite_ids:
        lines.append("storage suites " + ", ".join(str(s) for s in row.suite_ids))
    return "\n".join(lines)


class CellsModel(QAbstractTableModel):
    """The grid; ``set_shown`` after each read of the campaign."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[str] = []
        self.columns: list[str] = []
        self.views: dict[tuple[int, int], CellView] = {}

    def set_shown(self, shown: CampaignShown | None, running: Collection[int] = ()) -> None:
        """Show the campaign's cells (``running``: the indexes of the cells in flight)."""
        rows = shown.rows if shown is not None else []
        pairs = list(dict.fromkeys(r.cell.pair for r in rows))
        columns = list(dict.fromkeys(r.cell.column for r in rows))
        row_of = {p: i for i, p in enumerate(pairs)}
        col_of = {c: i for i, c in enumerate(columns)}
        views = {}
        for r in rows:
            live = r.cell.index in running
            views[(row_of[r.cell.pair], col_of[r.cell.column])] = CellView(
                r, "running" if live else r.status, cell_text(r, live), cell_tip(r)
            )
        if pairs != self.pairs or columns != self.columns:
            self.beginResetModel()
            self.pairs, self.columns, self.views = pairs, columns, views
            self.endResetModel()
            return
        changed = [key for key, view in views.items() if self.views.get(key) != view]
        self.views = views
        # Only the cells that changed are repainted (after a run: one or two).
        if len(changed) > MAX_SINGLE_UPDATES:
            last = self.index(len(pairs) - 1, len(columns) - 1)
            self.dataChanged.emit(self.index(0, 0), last)
            return
        for row, column in changed:
            index = self.index(row, column)
            self.dataChanged.emit(index, index)

    def view_at(self, row: int, column: int) -> CellView | None:
        return self.views.get((row, column))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.pairs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        view = self.views.get((index.row(), index.column()))
        if view is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return "—"  # the filter left this pair × column out
            if role == Qt.ItemDataRole.ToolTipRole:
                return "not in the plan (the filter removed it)"
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return view.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return view.tip
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(COLORS.get(view.status, "#ffffff")))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#202020"))
        if role == Qt.ItemDataRole.FontRole and view.status == "running":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        names = self.columns if orientation == Qt.Orientation.Horizontal else self.pairs
        return names[section] if 0 <= section < len(names) else None
