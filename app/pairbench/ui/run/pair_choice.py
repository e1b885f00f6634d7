"""The run panel's pair: a list of the library's pairs, read through the bridge, and reload."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QToolButton, QWidget

from pairbench.domain import LOCAL_PAIR, HostPair
from pairbench.services.library import Library
from pairbench.services.pairs import all_pairs
from pairbench.ui.bridge import EngineBridge


def pair_title(pair: HostPair) -> str:
    return f"{pair.name} — {pair.description}" if pair.description else pair.name


class PairChoice(QWidget):
    """Which pair a run goes on; the one wanted is chosen as soon as it is loaded."""

    loaded = Signal(list)  # list[HostPair]
    loadFailed = Signal(str)  # why, in words

    def __init__(
        self, bridge: EngineBridge, wanted: str = LOCAL_PAIR.name, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.pairs: list[HostPair] = []
        self.wanted = wanted  # chosen once loaded (a remembered or a requested pair)
        self.combo = QComboBox()
        self.combo.setObjectName("pair_combo")
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(12)
        self.combo.setPlaceholderText("Loading pairs…")
        reload_button = QToolButton()
        reload_button.setText("↻")
        reload_button.setToolTip("Reload the pairs from the library")
        reload_button.clicked.connect(self.refresh)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(reload_button)

    def refresh(self) -> None:
        """Reload the pairs from the library (through the engine thread)."""

        async def job(library: Library) -> list[HostPair]:
            return all_pairs(library)

        def done(pairs: list[HostPair]) -> None:
            if shiboken6.isValid(self):  # the window may have closed meanwhile
                self.set_pairs(pairs)

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self.loadFailed.emit(f"Could not read the pairs from the library: {error}")

        self.bridge.call(job, done, failed)

    def set_pairs(self, pairs: list[HostPair]) -> None:
        """Offer ``pairs``, keeping the current choice (else the wanted one, else local)."""
        current = self.current()
        wanted = current.name if current else self.wanted
        self.pairs = list(pairs)
        self.combo.clear()
        for pair in self.pairs:
            self.combo.addItem(pair_title(pair), pair.name)
        names = [pair.name for pair in self.pairs]
        for choice in (wanted, LOCAL_PAIR.name):
            if choice in names:
                self.combo.setCurrentIndex(names.index(choice))
                break
        if not self.pairs:
            self.combo.setPlaceholderText("No pairs: add one under Hosts & pairs")
        self.loaded.emit(self.pairs)

    def current(self) -> HostPair | None:
        name = self.combo.currentData()
        return next((pair for pair in self.pairs if pair.name == name), None)

    def select(self, name: str) -> bool:
        """Choose pair ``name``; False (and chosen once loaded) when it is not listed yet."""
        index = self.combo.findData(name)
        if index < 0:
            self.wanted = name
            return False
        self.combo.setCurrentIndex(index)
        return True
