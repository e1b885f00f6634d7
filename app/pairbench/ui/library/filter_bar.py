"""The Library tab's filter bar: the source (this computer or the team library, when there is
one), search, pair, tool, status, tag and dates, and the count."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta

from PySide6.QtCore import QDate, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import RunStatus
from pairbench.services.run_browser import RunQuery
from pairbench.tools.registry import TOOLS

SEARCH_DELAY_MS = 250


def _day_start(day: object) -> float:
    """Local midnight of a ``QDate.toPython()`` date, as epoch seconds."""
    assert isinstance(day, date)
    return datetime(day.year, day.month, day.day).timestamp()


class FilterBar(QWidget):
    """What the user filters by; ``changed`` when it changes (typing waits a moment)."""

    changed = Signal()
    refreshClicked = Signal()
    sourceChanged = Signal(bool)  # True: the team library's runs

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search label, notes, tags, pair…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMinimumWidth(160)
        self.pair_combo = QComboBox()
        self.tool_combo = QComboBox()
        self.status_combo = QComboBox()
        self.pair_combo.addItem("All pairs", None)
        self.tool_combo.addItem("All tools", None)
        self.status_combo.addItem("Any status", None)
        for status in RunStatus:
            self.status_combo.addItem(status.value, status.value)
        for combo in (self.pair_combo, self.tool_combo, self.status_combo):
            # As wide as ~12 characters whatever the longest pair name: the tab fits 1280 px.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(12)
            combo.currentIndexChanged.connect(self.changed)
        self.tag_edit = QLineEdit()
        self.tag_edit.setPlaceholderText("tag or key=value")
        self.tag_edit.setClearButtonEnabled(True)
        self.tag_edit.setMaximumWidth(150)
        self.date_check = QCheckBox("From")
        self.from_date = QDateEdit(QDate.currentDate().addMonths(-1))
        self.to_date = QDateEdit(QDate.currentDate())
        for edit in (self.from_date, self.to_date):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
            edit.dateChanged.connect(self.changed)
        self.date_check.toggled.connect(self._dates_toggled)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refreshClicked)
        self.count_label = QLabel()
        self.source_combo = QComboBox()  # shown when this library has a team library
        self.source_combo.addItem("This computer", False)
        self.source_combo.addItem("Team", True)
        self.source_combo.setToolTip("Runs of this computer's library, or of the team library")
        self.source_combo.hide()
        self.source_combo.currentIndexChanged.connect(
            lambda _index: self.sourceChanged.emit(self.is_team())
        )

        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(SEARCH_DELAY_MS)
        self._typing.timeout.connect(self.changed)
        self.search_edit.textChanged.connect(self._typing.start)
        self.tag_edit.textChanged.connect(self._typing.start)

        row = QHBoxLayout()
        row.addWidget(self.search_edit, 2)
        row.addWidget(self.pair_combo)
        row.addWidget(self.tool_combo)
        row.addWidget(self.status_combo)
        row.addWidget(self.tag_edit, 1)
        dates = QHBoxLayout()  # a second row: the tab fits a 1280-pixel window with the dock
        dates.addWidget(self.source_combo)
        dates.addWidget(self.date_check)
        dates.addWidget(self.from_date)
        dates.addWidget(QLabel("to"))
        dates.addWidget(self.to_date)
        dates.addWidget(self.refresh_button)
        dates.addStretch(1)
        self.count_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(dates)
        layout.addWidget(self.count_label)

    def _dates_toggled(self, on: bool) -> None:
        self.from_date.setEnabled(on)
        self.to_date.setEnabled(on)
        self.changed.emit()

    def is_team(self) -> bool:
        """True when the team library's runs are chosen."""
        return bool(self.source_combo.currentData()) and not self.source_combo.isHidden()

    def set_team_available(self, url: str | None) -> None:
        """Offer the team library (its address in the tooltip) or not; without one, back to
        this computer's runs."""
        if url:
            self.source_combo.setToolTip(f"This computer's runs, or the team library's ({url})")
            self.source_combo.show()
        elif not self.source_combo.isHidden():
            self.source_combo.setCurrentIndex(0)
            self.source_combo.hide()

    def settle(self) -> None:
        """Forget a pending "typing" change (the caller reloads now anyway)."""
        self._typing.stop()

    def query(self) -> RunQuery:
        """The filters as set now."""
        since = until = None
        if self.date_check.isChecked():
            since = _day_start(self.from_date.date().toPython())
            end = datetime.fromtimestamp(_day_start(self.to_date.date().toPython()))
            until = (end + timedelta(days=1)).timestamp()
        status = self.status_combo.currentData()
        return RunQuery(
            pair=self.pair_combo.currentData(),
            tool=self.tool_combo.currentData(),
            status=RunStatus(status) if status else None,
            text=self.search_edit.text().strip() or None,
            tag=self.tag_edit.text().strip() or None,
            since=since,
            until=until,
        )

    def set_choices(self, pairs: Iterable[str], tools: Iterable[str]) -> None:
        """The pairs and tools the combos offer (a chosen one stays, even without runs)."""
        _set_choices(self.pair_combo, pairs)
        _set_choices(self.tool_combo, tools)

    def show_count(self, count: int, query: RunQuery, *, team: bool = False) -> None:
        """The count line: how many runs (match), or how to get the first one."""
        plural = "s" if count != 1 else ""
        if team:
            self.count_label.setText(
                f"{count} team run{plural}"
                + ("" if query.is_empty() else " match the filters")
                + " · team runs are read-only (label, tags, notes, delete and Run again are for "
                "this computer's runs)"
            )
        elif count == 0 and query.is_empty():
            tools = ", ".join(sorted(TOOLS))
            self.count_label.setText(
                "No runs yet. Start one from the Run tab (or: pairbench run --pair local "
                f"--tool iperf3), or drop a saved {tools} output file here to import it."
            )
        elif query.is_empty():
            self.count_label.setText(f"{count} run{plural}")
        else:
            self.count_label.setText(
                f"{count} run{plural} match the filters" if count else "No run matches the filters."
            )


def _set_choices(combo: QComboBox, names: Iterable[str]) -> None:
    names = list(names)
    current = combo.currentData()
    offered = [combo.itemData(i) for i in range(1, combo.count())]
    if offered == names or (current not in names and offered == [*names, current]):
        return  # unchanged: a refresh leaves the combo alone
    combo.blockSignals(True)
    try:
        while combo.count() > 1:
            combo.removeItem(1)
        for name in names:
            combo.addItem(name, name)
        index = combo.findData(current) if current is not None else 0
        if index < 0:  # keep a filter on a name that no longer has runs
            combo.addItem(current, current)
            index = combo.count() - 1
        combo.setCurrentIndex(index)
    finally:
        combo.blockSignals(False)
