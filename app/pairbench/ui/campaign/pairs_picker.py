"""The plan's pairs: saved pairs ticked in a list, or a tag selector (``zone=a, type=r4.*``)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import HostPair
from pairbench.domain.campaign import PairSelector
from pairbench.services.campaign_plan import PlanError
from pairbench.services.hosts import list_pairs
from pairbench.services.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.plan_text import parse_tags, tags_text


class PairsPicker(QWidget):
    """Pairs by name (a check list of the library's pairs) or by tags; ``changed`` on edits."""

    changed = Signal()

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.by_name = QRadioButton("By name")
        self.by_name.setObjectName("campaign_pairs_by_name")
        self.by_tags = QRadioButton("By tags")
        self.by_tags.setObjectName("campaign_pairs_by_tags")
        group = QButtonGroup(self)
        group.addButton(self.by_name)
        group.addButton(self.by_tags)
        self.by_name.setChecked(True)
        reload_button = QToolButton()
        reload_button.setText("↻")
        reload_button.setToolTip("Reload the pairs from the library")
        reload_button.clicked.connect(self.refresh)
        self.list = QListWidget()
        self.list.setObjectName("campaign_pairs")
        self.list.setMaximumHeight(96)
        self.tags_edit = QLineEdit()
        self.tags_edit.setObjectName("campaign_tags")
        self.tags_edit.setPlaceholderText("zone=a, type=r4.*  (every tag must match; globs)")
        self.tags_edit.setToolTip(
            "Pairs whose tags (or, for a tag the pair lacks, its client host's) match every "
            "key=glob; chosen when the campaign starts"
        )
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.by_name)
        row.addWidget(self.by_tags)
        row.addStretch(1)
        row.addWidget(reload_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.list)
        layout.addWidget(self.tags_edit)
        self.by_name.toggled.connect(self._mode_changed)
        self.list.itemChanged.connect(lambda _item: self.changed.emit())
        self.tags_edit.textChanged.connect(lambda _text: self.changed.emit())
        self._wanted: set[str] = set()  # names to tick once the list is loaded
        self._mode_changed()

    def refresh(self) -> None:
        """Load the library's pairs (through the bridge)."""

        async def job(library: Library) -> list[HostPair]:
            return list_pairs(library)

        def done(pairs: list[HostPair]) -> None:
            if shiboken6.isValid(self):
                self.set_pairs(pairs)

        self.bridge.call(job, done, lambda _error: None)

    def set_pairs(self, pairs: list[HostPair]) -> None:
        ticked = self.ticked() | self._wanted
        self.list.blockSignals(True)
        self.list.clear()
        known = set()
        for pair in pairs:
            known.add(pair.name)
            self._add(pair.name, pair.name in ticked, _pair_tip(pair))
        for name in sorted(ticked - known):  # a plan's pair this library lacks: shown, ticked
            self._add(name, True, f"{name}: not in this library")
        self.list.blockSignals(False)
        self._wanted = set()
        self.changed.emit()

    def _add(self, name: str, checked: bool, tip: str) -> None:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        item.setToolTip(tip)
        self.list.addItem(item)

    def ticked(self) -> set[str]:
        return {item.text() for item in self._items() if item.checkState() == Qt.CheckState.Checked}

    def _items(self) -> list[QListWidgetItem]:
        return [item for i in range(self.list.count()) if (item := self.list.item(i)) is not None]

    def set_checked(self, names: list[str]) -> None:
        """Tick exactly ``names`` (those not listed yet are added)."""
        present = {item.text() for item in self._items()}
        self.list.blockSignals(True)
        for item in self._items():
            state = Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
            item.setCheckState(state)
        for name in names:
            if name not in present:
                self._add(name, True, f"{name}: not in this library")
        self.list.blockSignals(False)
        self.changed.emit()

    def value(self) -> list[str] | dict[str, str]:
        """The plan's ``pairs``: names in list order, or the tag selector; ``PlanError``."""
        if self.by_tags.isChecked():
            return parse_tags(self.tags_edit.text())
        names = [
            item.text() for item in self._items() if item.checkState() == Qt.CheckState.Checked
        ]
        if not names:
            raise PlanError("tick at least one pair (or choose pairs by tags)")
        return names

    def set_selector(self, selector: PairSelector) -> None:
        if selector.names:
            self.by_name.setChecked(True)
            self._wanted = set(selector.names)
            self.set_checked(list(selector.names))
        else:
            self.by_tags.setChecked(True)
            self.tags_edit.setText(tags_text(selector.tags))

    def _mode_changed(self) -> None:
        self.list.setEnabled(self.by_name.isChecked())
        self.tags_edit.setEnabled(self.by_tags.isChecked())
        self.changed.emit()


def _pair_tip(pair: HostPair) -> str:
    tags = ", ".join(f"{k}={v}" for k, v in pair.tags.items())
    return f"{pair.name}: {pair.client.name} → {pair.server.name}" + (f"\n{tags}" if tags else "")
