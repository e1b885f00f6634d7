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
from pairbench.services.run_browser import Member, RunQuery
from pairbench.services.studies import Study, StudyCounts
from pairbench.tools.registry import TOOLS

SEARCH_DELAY_MS = 250
# What the Library lists: single runs (a suite's or campaign's are grouped under it), the
# storage suites or the campaigns (a row each), or every run.
SHOW_CHOICES = (
    ("Single runs", "single"),
    ("Storage suites", "suite"),
    ("Campaigns", "campaign"),
    ("Every run", "any"),
)
STUDY_MODES = ("suite", "campaign")
SHOW_TIP = (
    "Single runs: the runs of no storage suite nor campaign (theirs are grouped under them); "
    "Storage suites, Campaigns: one row each, with its runs counted; Every run: all of them"
)


def _day_start(day: object) -> float:
    """Local midnight of a ``QDate.toPython()`` date, as epoch seconds."""
    assert isinstance(day, date)
    return datetime(day.year, day.month, day.day).timestamp()


class FilterBar(QWidget):
    """What the user filters by; ``changed`` when it changes (typing waits a moment)."""

    changed = Signal()
    refreshClicked = Signal()
    sourceChanged = Signal(bool)  # True: the team library's runs
    showChanged = Signal(str)  # single, suite, campaign or any

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
        self.show_combo = QComboBox()
        self.show_combo.setObjectName("library_show")
        for text, mode in SHOW_CHOICES:
            self.show_combo.addItem(text, mode)
        self.show_combo.setToolTip(SHOW_TIP)
        self.show_combo.currentIndexChanged.connect(self._show_changed)
        self.study: tuple[str, int] | None = None  # the runs of one suite or campaign
        self.study_label = QLabel()
        self.study_label.setObjectName("library_study")
        self.study_clear = QPushButton("✕")
        self.study_clear.setObjectName("library_study_clear")
        self.study_clear.setToolTip("List every run again")
        self.study_clear.setFixedWidth(28)
        self.study_clear.clicked.connect(self.clear_study)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refreshClicked)
        self.count_label = QLabel()
        self.source_combo = QComboBox()  # shown when this library has a team library
        self.source_combo.addItem("This computer", False)
        self.source_combo.addItem("Team", True)
        self.source_combo.setToolTip("Runs of this computer's library, or of the team library")
        self.source_combo.hide()
        self.source_combo.currentIndexChanged.connect(self._source_changed)

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
        dates.addWidget(self.show_combo)
        dates.addWidget(self.study_label)
        dates.addWidget(self.study_clear)
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
        self.study_label.hide()
        self.study_clear.hide()

    # -- what is listed ----------------------------------------------------------------------

    def mode(self) -> str:
        """``single``, ``suite``, ``campaign`` (a row per study) or ``any``."""
        return str(self.show_combo.currentData())

    def studies_shown(self) -> bool:
        """True when the list holds storage suites or campaigns, not runs."""
        return self.mode() in STUDY_MODES and self.study is None and not self.is_team()

    def _source_changed(self, _index: int) -> None:
        """The team library's runs are listed all together (no grouping): its suites and
        campaigns are read with ``storage list --team`` and ``campaign list --team``."""
        team = self.is_team()
        self.show_combo.setEnabled(not team)
        self.show_combo.setToolTip(
            "The team library's runs are listed all together; its suites and campaigns: "
            "pairbench storage list --team, pairbench campaign list --team"
            if team
            else SHOW_TIP
        )
        self._enable_run_filters(not self.studies_shown())
        self.sourceChanged.emit(team)

    def set_mode(self, mode: str) -> None:
        """Show single runs, suites, campaigns or every run (as chosen in the combo)."""
        self.show_combo.setCurrentIndex(self.show_combo.findData(mode))

    def set_study(self, kind: str, study_id: int, name: str) -> None:
        """List the runs of one suite or campaign (``name`` says which)."""
        self.study = (kind, study_id)
        self.study_label.setText(f"Runs of {name}")
        self.study_label.show()
        self.study_clear.show()
        self.show_combo.blockSignals(True)
        self.set_mode("any")
        self.show_combo.blockSignals(False)
        self._enable_run_filters(True)
        self.showChanged.emit(self.mode())

    def clear_study(self) -> None:
        """Back to every run."""
        if self.study is None:
            return
        self.study = None
        self.study_label.hide()
        self.study_clear.hide()
        self.showChanged.emit(self.mode())

    def _show_changed(self, _index: int) -> None:
        if self.study is not None:
            self.study = None
            self.study_label.hide()
            self.study_clear.hide()
        self._enable_run_filters(not self.studies_shown())
        self.showChanged.emit(self.mode())

    def _enable_run_filters(self, on: bool) -> None:
        """The run filters apply to runs, not to the suites' or campaigns' rows."""
        for widget in (
            self.search_edit,
            self.pair_combo,
            self.tool_combo,
            self.status_combo,
            self.tag_edit,
            self.date_check,
        ):
            widget.setEnabled(on)
        for edit in (self.from_date, self.to_date):
            edit.setEnabled(on and self.date_check.isChecked())

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
        member: Member = "any"
        member_id: int | None = None
        if self.is_team():
            pass  # the team library's runs: all of them
        elif self.study is not None:
            member = "suite" if self.study[0] == "suite" else "campaign"
            member_id = self.study[1]
        elif self.mode() == "single":
            member = "single"
        return RunQuery(
            member=member,
            member_id=member_id,
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

    def show_count(
        self,
        count: int,
        query: RunQuery,
        *,
        team: bool = False,
        studies: StudyCounts | None = None,
    ) -> None:
        """The count line: how many runs (match), or how to get the first one; with single
        runs listed, the suites and campaigns the others are grouped under."""
        plural = "s" if count != 1 else ""
        matches = "matches" if count == 1 else "match"
        if team:
            text = (
                f"{count} team run{plural}"
                + ("" if query.is_empty() else f" {matches} the filters")
                + " · team runs are read-only (label, tags, notes, delete and Run again are for "
                "this computer's runs)"
            )
        elif count == 0 and query.is_empty() and not _any_study(studies):
            tools = ", ".join(sorted(TOOLS))
            text = (
                "No runs yet. Start one from the Run tab (or: pairbench run --pair local "
                f"--tool iperf3), or drop a saved {tools} output file here to import it."
            )
        elif query.is_empty():
            text = f"{count} {'single ' if _any_study(studies) else ''}run{plural}"
        else:
            text = f"{count} run{plural} {matches} the filters" if count else ""
            text = text or "No run matches the filters."
        if _any_study(studies) and studies is not None:
            text += " · " + grouped_text(studies)
        self.count_label.setText(text)

    def show_studies(self, studies: list[Study]) -> None:
        """The count line over the suites' or campaigns' rows."""
        kind = "storage suite" if self.mode() == "suite" else "campaign"
        runs = sum(s.runs for s in studies)
        tab = "Storage suite" if self.mode() == "suite" else "Campaigns"
        self.count_label.setText(
            f"{len(studies)} {kind}{'s' if len(studies) != 1 else ''} holding {runs} "
            f"run{'s' if runs != 1 else ''} · Open (or double-click) shows one in the {tab} "
            "tab; List its runs lists them here"
        )


def _any_study(studies: StudyCounts | None) -> bool:
    return studies is not None and bool(studies.suites or studies.campaigns)


def grouped_text(studies: StudyCounts) -> str:
    """``1 storage suite (61 runs) and 1 campaign (6 runs) grouped: Show them above``."""
    parts = []
    if studies.suites:
        s = "s" if studies.suites != 1 else ""
        parts.append(f"{studies.suites} storage suite{s} ({studies.suite_runs} runs)")
    if studies.campaigns:
        s = "s" if studies.campaigns != 1 else ""
        parts.append(f"{studies.campaigns} campaign{s} ({studies.campaign_runs} runs)")
    return " and ".join(parts) + " grouped: choose them under Show"


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
