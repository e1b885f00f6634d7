"""The Team list's Status cell of a run still running on its publisher's computer: marked
"● running · live", with a tooltip saying that opening it follows it live."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
)

from pairbench.domain import Run, RunStatus
from pairbench.ui.library.runs_model import RUN_ROLE

LIVE_TEXT = "● running · live"
LIVE_TIP = "Published live while it runs: open it to watch its plots grow"

_Index = QModelIndex | QPersistentModelIndex


def _running(index: _Index) -> bool:
    run = index.data(RUN_ROLE)
    return isinstance(run, Run) and run.status is RunStatus.RUNNING


class LiveStatusDelegate(QStyledItemDelegate):
    """Draws a running team run's status as live (set on the Status column under Team)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:
        super().initStyleOption(option, index)
        if _running(index):
            option.text = LIVE_TEXT

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: _Index,
    ) -> bool:
        if _running(index):
            QToolTip.showText(event.globalPos(), LIVE_TIP, view)
            return True
        return super().helpEvent(event, view, option, index)
