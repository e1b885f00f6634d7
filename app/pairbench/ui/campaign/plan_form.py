"""The plan's form: name, pairs, tests, repeats and order, schedule, outliers, failures,
parallel pairs and filter; read as the plan file's mapping, filled from a plan."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.campaign import Order, Plan, RetryPolicy
from pairbench.services.campaign_plan import PlanError
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.pairs_picker import PairsPicker
from pairbench.ui.campaign.plan_text import parse_times
from pairbench.ui.campaign.tests_editor import TestsEditor

SCHEDULES = (("once", "Once, now"), ("every", "Every N minutes for D hours"),
             ("times", "At times of day"))  # fmt: skip
OUTLIER_K = {"iqr": 1.5, "mad": 3.0}


def _spin(low: int, high: int, value: int, special: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    if special:
        spin.setSpecialValueText(special)
    return spin


def _dspin(low: float, high: float, value: float, suffix: str, decimals: int = 1) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setDecimals(decimals)
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setSuffix(suffix)
    return spin


def _row(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return holder


class PlanForm(QWidget):
    """Every field of a plan; ``changed`` on any edit."""

    changed = Signal()

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name_edit = QLineEdit("campaign")
        self.name_edit.setObjectName("campaign_name")
        self.label = ""  # a plan's label (kept from the file it was opened from)
        self.pairs = PairsPicker(bridge)
        self.tests = TestsEditor()
        # Repeats and order
        self.min_spin = _spin(1, 10_000, 3)
        self.max_spin = _spin(1, 10_000, 3)
        self.cv_spin = _dspin(0.0, 500.0, 0.0, " %", 2)
        self.cv_spin.setSpecialValueText("none")
        self.cv_spin.setToolTip("After the minimum, repeat a cell until its CV is at most this")
        self.order_combo = QComboBox()
        for order in Order:
            self.order_combo.addItem(order.value, order.value)
        self.seed_spin = _spin(-1, 2**31 - 1, -1, "random")
        self.pause_spin = _dspin(0.0, 86_400.0, 0.0, " s")
        # Schedule
        self.schedule_combo = QComboBox()
        for kind, text in SCHEDULES:
            self.schedule_combo.addItem(text, kind)
        self.every_spin = _dspin(0.01, 10_080.0, 60.0, " min", 2)
        self.for_spin = _dspin(0.001, 8_760.0, 24.0, " h", 3)
        self.every_row = _row(QLabel("every"), self.every_spin, QLabel("for"), self.for_spin)
        self.times_edit = QLineEdit()
        self.times_edit.setPlaceholderText("08:00, 20:00")
        self.days_spin = _spin(1, 366, 1)
        self.days_spin.setSuffix(" day(s)")
        self.times_row = _row(QLabel("at"), self.times_edit, QLabel("for"), self.days_spin)
        # Outliers and failures
        self.outlier_combo = QComboBox()
        for method, text in (("none", "none"), ("iqr", "k × IQR"), ("mad", "k × MAD")):
            self.outlier_combo.addItem(text, method)
        self.k_spin = _dspin(0.1, 100.0, 3.0, "", 2)
        default = RetryPolicy()
        self.retries_spin = _spin(0, 100, default.retries)
        self.delay_spin = _dspin(0.0, 86_400.0, default.delay_s, " s")
        self.skip_spin = _spin(0, 1000, default.skip_pair_after, "never")
        self.parallel_spin = _spin(1, 64, 1)
        self.parallel_spin.setToolTip("Pairs that may run at once (two runs never share a host)")
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("campaign_filter")
        self.filter_edit.setPlaceholderText("e.g. streams > 1 and pair.zone != 'b'")

        head = QFormLayout()
        head.addRow("Name", self.name_edit)
        pairs_box = QGroupBox("Pairs")
        QVBoxLayout(pairs_box).addWidget(self.pairs)
        tests_box = QGroupBox("Tests")
        QVBoxLayout(tests_box).addWidget(self.tests)
        repeats_box = QGroupBox("Repeats and order")
        repeats = QFormLayout(repeats_box)
        repeats.addRow("Runs per cell", _row(self.min_spin, QLabel("to"), self.max_spin))
        repeats.addRow("CV target", self.cv_spin)
        repeats.addRow("Order", _row(self.order_combo, QLabel("seed"), self.seed_spin))
        repeats.addRow("Pause between runs", self.pause_spin)
        repeats.addRow("Schedule", self.schedule_combo)
        repeats.addRow(self.every_row)
        repeats.addRow(self.times_row)
        repeats.addRow("Outliers", _row(self.outlier_combo, QLabel("k"), self.k_spin))
        failures_box = QGroupBox("Failures and filter")
        failures = QFormLayout(failures_box)
        failures.addRow("Retries", _row(self.retries_spin, QLabel("after"), self.delay_spin))
        failures.addRow("Skip a pair after", _row(self.skip_spin, QLabel("failures in a row")))
        failures.addRow("Parallel pairs", self.parallel_spin)
        failures.addRow("Filter", self.filter_edit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(pairs_box)
        layout.addWidget(tests_box)
        layout.addWidget(repeats_box)
        layout.addWidget(failures_box)

        self.pairs.changed.connect(self.changed)
        self.tests.changed.connect(self.changed)
        for edit in (self.name_edit, self.times_edit, self.filter_edit):
            edit.textChanged.connect(lambda _t: self.changed.emit())
        for spin in (self.min_spin, self.max_spin, self.seed_spin, self.days_spin,
                     self.retries_spin, self.skip_spin, self.parallel_spin):  # fmt: skip
            spin.valueChanged.connect(lambda _v: self.changed.emit())
        for dspin in (self.cv_spin, self.pause_spin, self.every_spin, self.for_spin,
                      self.k_spin, self.delay_spin):  # fmt: skip
            dspin.valueChanged.connect(lambda _v: self.changed.emit())
        for combo in (self.order_combo, self.schedule_combo, self.outlier_combo):
            combo.currentIndexChanged.connect(lambda _i: self._kinds_changed())
        self._kinds_changed()

    def _kinds_changed(self) -> None:
        kind = self.schedule_combo.currentData()
        self.every_row.setVisible(kind == "every")
        self.times_row.setVisible(kind == "times")
        self.k_spin.setEnabled(self.outlier_combo.currentData() != "none")
        self.changed.emit()

    # -- the plan's mapping ------------------------------------------------------------------

    def mapping(self) -> dict[str, Any]:
        """The fields as a plan file's mapping (``plan_from_mapping`` checks it);
        ``PlanError`` for a field the form itself cannot read."""
        low, high = self.min_spin.value(), self.max_spin.value()
        cv = self.cv_spin.value()
        repeats: object = (
            low
            if low == high and not cv
            else {"min": low, "max": high, **({"cv": cv / 100} if cv else {})}
        )
        data: dict[str, Any] = {
            "name": self.name_edit.text(),
            "pairs": self.pairs.value(),
            "tests": self.tests.mapping(),
            "repeats": repeats,
            "order": self.order_combo.currentData(),
            "pause": self.pause_spin.value(),
            "schedule": self._schedule(),
            "outliers": self._outliers(),
            "retry": {
                "retries": self.retries_spin.value(),
                "delay": self.delay_spin.value(),
                "skip_pair_after": self.skip_spin.value(),
            },
            "parallel": self.parallel_spin.value(),
            "filter": self.filter_edit.text(),
        }
        if self.label:
            data["label"] = self.label
        if self.seed_spin.value() >= 0:
            data["seed"] = self.seed_spin.value()
        return data

    def _schedule(self) -> object:
        kind = self.schedule_combo.currentData()
        if kind == "every":
            return {"every": self.every_spin.value() * 60, "for": self.for_spin.value() * 3600}
        if kind == "times":
            times = parse_times(self.times_edit.text())
            if not times:
                raise PlanError("give the times of day, e.g. 08:00, 20:00")
            return {"at": times, "days": self.days_spin.value()}
        return "once"

    def _outliers(self) -> str:
        method = str(self.outlier_combo.currentData())
        return method if method == "none" else f"{method}:{self.k_spin.value():g}"

    # -- filling from a plan -----------------------------------------------------------------

    def set_plan(self, plan: Plan) -> None:
        """Show ``plan`` in the fields (``changed`` once, at the end)."""
        self.blockSignals(True)
        try:
            self.name_edit.setText(plan.name)
            self.pairs.set_selector(plan.pairs)
            self.tests.set_tests(plan.tests)
            self.min_spin.setValue(plan.repeats.min)
            self.max_spin.setValue(plan.repeats.max)
            self.cv_spin.setValue(0.0 if plan.repeats.cv is None else plan.repeats.cv * 100)
            self.order_combo.setCurrentIndex(self.order_combo.findData(plan.order.value))
            self.seed_spin.setValue(-1 if plan.seed is None else plan.seed)
            self.pause_spin.setValue(plan.pause_s)
            schedule = plan.schedule
            self.schedule_combo.setCurrentIndex(self.schedule_combo.findData(schedule.kind))
            if schedule.kind == "every":
                self.every_spin.setValue(schedule.every_s / 60)
                self.for_spin.setValue(schedule.for_s / 3600)
            elif schedule.kind == "times":
                self.times_edit.setText(", ".join(schedule.times))
                self.days_spin.setValue(schedule.days)
            method, _sep, k = plan.outliers.partition(":")
            self.outlier_combo.setCurrentIndex(max(0, self.outlier_combo.findData(method)))
            self.k_spin.setValue(float(k) if k else OUTLIER_K.get(method, 3.0))
            self.retries_spin.setValue(plan.retry.retries)
            self.delay_spin.setValue(plan.retry.delay_s)
            self.skip_spin.setValue(plan.retry.skip_pair_after)
            self.parallel_spin.setValue(plan.parallel)
            self.filter_edit.setText(plan.filter)
            self.label = plan.label
        finally:
            self.blockSignals(False)
        self._kinds_changed()
