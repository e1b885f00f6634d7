"""The "Pairs" box: the pairs table and the pair buttons (add, edit, remove, check)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QPushButton, QVBoxLayout, QWidget

from pairbench.domain import HostPair
from pairbench.domain.host_text import format_tags
from pairbench.ui.hosts.tables import NameTable, button_row, cell


class PairsList(QGroupBox):
    """Shows pairs; its buttons only ask (the panel's actions answer)."""

    selectionChanged = Signal()
    addRequested = Signal()
    editRequested = Signal()
    removeRequested = Signal()
    checkRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Pairs", parent)
        self.checking = False  # one check at a time: Check waits for the running one
        self.table = NameTable(["Name", "Client → server", "Data address", "Tags", "Description"])
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self.editRequested.emit())
        self.add_button = QPushButton("Add…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip(
            "Connect to both hosts, list tool versions, ping the data address, compare clocks"
        )
        self.add_button.clicked.connect(self.addRequested)
        self.edit_button.clicked.connect(self.editRequested)
        self.remove_button.clicked.connect(self.removeRequested)
        self.check_button.clicked.connect(self.checkRequested)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(
            button_row(
                self.add_button, self.edit_button, self.remove_button, None, self.check_button
            )
        )
        self._selection_changed()

    def show_pairs(self, pairs: list[HostPair]) -> None:
        """Fill the table; the selection is the caller's."""
        self.table.set_rows(
            [
                (
                    pair.name,
                    [
                        cell(pair.name),
                        cell(f"{pair.client.name} → {pair.server.name}"),
                        cell(pair.data_address or f"{pair.server.address} (server's)"),
                        cell(format_tags(pair.tags)),
                        cell(pair.description),
                    ],
                )
                for pair in pairs
            ]
        )
        self._update_buttons()

    def selected(self) -> str | None:
        return self.table.selected_name()

    def select(self, name: str | None) -> None:
        self.table.select_name(name)

    def set_checking(self, checking: bool) -> None:
        self.checking = checking
        self._update_buttons()

    def _selection_changed(self) -> None:
        self._update_buttons()
        self.selectionChanged.emit()

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        self.edit_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)
        self.check_button.setEnabled(chosen and not self.checking)
