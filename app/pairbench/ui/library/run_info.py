"""A stored run's facts as the detail's tree: summary, parameters, the run, host facts.

A run whose stored burst analysis found a step heads its summary with burst → baseline
(the run's mean then reads as the whole run's mean, not as its throughput).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtWidgets import (
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
)

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain import Run
from pairbench.domain.host_text import format_tags
from pairbench.domain.metrics import metric_label, metric_order
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import format_value
from pairbench.services.run_browser import SeriesArrays
from pairbench.ui.library.burst_box import step_headline

STEP_ROW = "Burst → baseline"
MEAN_SUFFIX = " (mean)"


class WrapDelegate(QStyledItemDelegate):
    """Rows as tall as their text wrapped in its column's width (a tree's own size hint
    ignores wrapping, so long values were cut with "…")."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        base = super().sizeHint(option, index)
        width = self.tree.columnWidth(index.column())
        if index.column() == 0:
            depth, parent = 1, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width -= self.tree.indentation() * depth
        text = str(index.data() or "")
        flags = int(Qt.TextFlag.TextWordWrap)
        room = QRect(0, 0, max(20, width - 6), 10**6)  # the text margins, 3 px a side
        bounds = option.fontMetrics.boundingRect(room, flags, text)
        return QSize(base.width(), max(base.height(), bounds.height() + 4))


def wrap_values(tree: QTreeWidget) -> None:
    """Let ``tree`` wrap long values in their column instead of cutting them."""
    tree.setItemDelegate(WrapDelegate(tree))
    tree.setWordWrap(True)
    tree.setUniformRowHeights(False)
    tree.setTextElideMode(Qt.TextElideMode.ElideNone)
    tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    tree.header().sectionResized.connect(lambda *_: tree.scheduleDelayedItemsLayout())


def _section(
    tree: QTreeWidget, title: str, rows: list[tuple[str, str]], empty: str = "none"
) -> QTreeWidgetItem:
    top = QTreeWidgetItem([title, "" if rows else empty])
    font = top.font(0)
    font.setBold(True)
    top.setFont(0, font)
    for key, value in rows:
        child = QTreeWidgetItem([key, value])
        child.setToolTip(1, value)
        top.addChild(child)
    tree.addTopLevelItem(top)
    top.setExpanded(True)
    return top


def summary_rows(run: Run, step: BurstEstimate | None = None) -> list[tuple[str, str]]:
    """The summary as (label, value) rows in the vocabulary's order; with a burst step found,
    burst → baseline first and the throughput named as the whole run's mean."""
    rows = []
    for name in metric_order(run.summary):
        label = metric_label(name, run.spec.tool)
        if step is not None and name == "throughput_bps":
            label += MEAN_SUFFIX
        rows.append((label, format_value(name, run.summary[name])))
    if step is not None:
        rows.insert(0, (STEP_ROW, step_headline(step)))
    return rows


def fill_info(
    tree: QTreeWidget,
    run: Run,
    duration: str,
    step: BurstEstimate | None = None,
    limited_by: str = "",
) -> QTreeWidgetItem:
    """Fill ``tree`` with the run's sections; the summary's item (ending with what limited
    the run, when ``limited_by`` says)."""
    tree.clear()
    rows = summary_rows(run, step) + ([("Limited by", limited_by)] if limited_by else [])
    summary = _section(
        tree,
        "Summary" + ("" if run.summary_complete or not run.summary else " (partial)"),
        rows,
    )
    _section(tree, "Parameters", sorted(run.spec.params.items()), "none recorded")
    _section(
        tree,
        "Run",
        [
            ("id", str(run.id)),
            ("pair", run.spec.pair),
            ("tool", run.spec.tool + (f" ({run.tool_version})" if run.tool_version else "")),
            ("status", run.status.value),
            ("started", time_text(run.started_at)),
            ("ended", time_text(run.ended_at)),
            ("duration", duration),
            ("label", run.label),
            ("tags", format_tags(run.tags)),
            ("notes", run.notes),
        ],
    )
    facts = _section(tree, "Host facts", [], "" if run.host_facts else "none recorded")
    for host, values in sorted(run.host_facts.items()):
        host_item = QTreeWidgetItem([host, ""])
        for key, value in sorted(values.items()):
            child = QTreeWidgetItem([key, value])
            child.setToolTip(1, value)
            host_item.addChild(child)
        facts.addChild(host_item)
    facts.setExpanded(True)
    tree.resizeColumnToContents(0)
    return summary


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "still running"
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(int(minutes), 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02.0f} s"
    return f"{secs:.1f} s"


def duration_text(run: Run, series: list[SeriesArrays]) -> str:
    """The run's wall-clock duration; for an import (no duration), the span its samples cover."""
    span = max((float(one.t[-1]) for one in series if len(one.t)), default=0.0)
    if run.duration is not None and run.duration < 0.5 and span > 0:
        return f"{_duration(span)} of samples"
    return _duration(run.duration)
