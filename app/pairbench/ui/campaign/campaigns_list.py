"""The library's campaigns with their status: Open shows one's grid (one another process
runs is followed read-only), Resume goes on with a stopped one; and a bar that offers to
resume interrupted campaigns when the window starts (never a dialog)."""

from __future__ import annotations

from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.campaign import CampaignStatus
from pairbench.domain.timestamps import time_text
from pairbench.services.campaign_watch import other_owner_pid
from pairbench.services.campaigns import list_all
from pairbench.services.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import error_text
from pairbench.ui.library.message_bar import MessageBar

HEADERS = ("#", "Name", "Status", "Created")


@dataclass(frozen=True, slots=True)
class CampaignItem:
    """A campaign as the list shows it."""

    id: int
    name: str
    status: str
    paused: bool
    created_at: float
    error: str
    owner_pid: int | None  # another live process on this computer runs it

    @property
    def resumable(self) -> bool:
        return self.status != "running" and CampaignStatus(self.status).resumable

    @property
    def interrupted(self) -> bool:
        return self.status == CampaignStatus.INTERRUPTED.value


def load_items(library: Library) -> list[CampaignItem]:
    """Every campaign, newest first, with the pid of the process running it elsewhere."""
    items = []
    for c in list_all(library):
        pid = other_owner_pid(library, c.id) if c.status == "running" else None
        items.append(
            CampaignItem(c.id, c.name, c.status, c.paused, c.created_at, c.error or "", pid)
        )
    return items


class InterruptedBar(MessageBar):
    """ "Campaign #3 was interrupted…" with a Resume button for the newest."""

    resumeRequested = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("campaign_interrupted")
        self.campaign_id: int | None = None
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("campaign_resume_interrupted")
        self.resume_button.clicked.connect(self._resume)
        row = self.layout()
        assert isinstance(row, QHBoxLayout)
        row.insertWidget(1, self.resume_button, 0, Qt.AlignmentFlag.AlignTop)

    def offer(self, items: list[CampaignItem]) -> None:
        if not items:
            self.hide()
            self.campaign_id = None
            return
        newest = items[0]
        self.campaign_id = newest.id
        others = f" ({len(items) - 1} more in the Campaigns list)" if len(items) > 1 else ""
        self.show_message(
            "info",
            f"Campaign #{newest.id} {newest.name} was interrupted: "
            f"{newest.error or 'it stopped'}. Its finished runs are kept; resume it to go on "
            f"from the next run{others}.",
        )
        self.resume_button.setText(f"Resume #{newest.id}")

    def _resume(self) -> None:
        if self.campaign_id is not None:
            self.resumeRequested.emit(self.campaign_id)
            self.hide()


class CampaignsList(QWidget):
    """The campaigns, read through the bridge."""

    openRequested = Signal(object)  # CampaignItem
    resumeRequested = Signal(int)
    loaded = Signal(list)  # list[CampaignItem]
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.items: list[CampaignItem] = []
        self.own_id: int | None = None  # the campaign this window runs
        self.busy = False
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setObjectName("campaign_list")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for column in (0, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.itemDoubleClicked.connect(lambda _item: self._open())
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("campaign_open")
        self.open_button.setToolTip("Show its grid (followed live if another process runs it)")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("campaign_resume")
        self.resume_button.setToolTip("Go on from the campaign's next run")
        reload_button = QToolButton()
        reload_button.setText("↻")
        reload_button.setToolTip("Reload the campaigns from the library")
        reload_button.clicked.connect(self.refresh)
        self.open_button.clicked.connect(self._open)
        self.resume_button.clicked.connect(self._resume)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(QLabel("<b>Campaigns</b> in the library"), 1)
        buttons.addWidget(reload_button)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.open_button)
        row.addWidget(self.resume_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        self._selection_changed()

    def refresh(self) -> None:
        def done(items: list[CampaignItem]) -> None:
            if shiboken6.isValid(self):
                self.set_items(items)

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self.failed.emit(f"Could not read the campaigns: {error_text(error)}")

        async def job(library: Library) -> list[CampaignItem]:
            return load_items(library)

        self.bridge.call(job, done, failed)

    def set_items(self, items: list[CampaignItem]) -> None:
        selected = self.selected()
        self.items = list(items)
        self.table.setRowCount(len(items))
        for row, item in enumerate(items):
            when = time_text(item.created_at, "%Y-%m-%d %H:%M")
            cells = (f"{item.id}", item.name, self.status_text(item), when)
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, item.id)
                if item.error:
                    cell.setToolTip(item.error)
                self.table.setItem(row, column, cell)
        if selected is not None:
            self.select(selected.id)
        elif items:
            self.table.selectRow(0)
        self._selection_changed()
        self.loaded.emit(self.items)

    def status_text(self, item: CampaignItem) -> str:
        status = item.status + (" (paused)" if item.paused else "")
        if item.status == "running":
            if item.id == self.own_id:
                return f"{status} here"
            pid = f" pid {item.owner_pid}" if item.owner_pid else ""
            return f"{status} elsewhere{pid}"
        return status

    def selected(self) -> CampaignItem | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        index = rows[0].row()
        return self.items[index] if 0 <= index < len(self.items) else None

    def select(self, campaign_id: int) -> bool:
        for row, item in enumerate(self.items):
            if item.id == campaign_id:
                self.table.selectRow(row)
                return True
        return False

    def set_busy(self, busy: bool, own_id: int | None) -> None:
        """While this window runs a campaign, no other is resumed (one at a time)."""
        self.busy, self.own_id = busy, own_id
        self._selection_changed()

    def _selection_changed(self) -> None:
        item = self.selected()
        self.open_button.setEnabled(item is not None)
        self.resume_button.setEnabled(item is not None and item.resumable and not self.busy)

    def _open(self) -> None:
        item = self.selected()
        if item is not None:
            self.openRequested.emit(item)

    def _resume(self) -> None:
        item = self.selected()
        if item is not None and self.resume_button.isEnabled():
            self.resumeRequested.emit(item.id)
