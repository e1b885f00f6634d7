"""The plan's tests: one box per test (tool, ``key = value`` parameter lines where a
comma-separated value is an axis, zip groups, metric, burst probe), added and removed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.campaign import TestPlan
from pairbench.tools.registry import TOOLS
from pairbench.ui.campaign.plan_text import params_text, parse_params, parse_zip, zip_text

DEFAULT_PARAMS = {"ping": "count = 5\ninterval = 0.2", "iperf3": "duration = 5\nstreams = 1, 4"}


class TestBox(QGroupBox):
    """One test of the plan."""

    __test__ = False  # not a pytest class
    changed = Signal()
    removeRequested = Signal(object)  # this box

    def __init__(self, number: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tool_combo = QComboBox()
        self.tool_combo.addItems(sorted(TOOLS))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("the tool's name")
        self.params_edit = QPlainTextEdit()
        self.params_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.params_edit.setPlaceholderText("key = value, one a line\nstreams = 1, 4   (an axis)")
        self.params_edit.setFixedHeight(74)
        self.params_edit.setTabChangesFocus(True)
        self.zip_edit = QLineEdit()
        self.zip_edit.setPlaceholderText("e.g. bitrate, length (axes that advance together)")
        self.metric_edit = QLineEdit()
        self.metric_edit.setPlaceholderText("the tool's usual one")
        self.burst_check = QCheckBox("Burst probe (iperf3)")
        self.remove_button = QToolButton()
        self.remove_button.setText("✕")
        self.remove_button.setToolTip("Remove this test")
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.tool_combo, 1)
        head.addWidget(self.remove_button)
        form.addRow("Tool", head)
        form.addRow("Name", self.name_edit)
        form.addRow("Parameters", self.params_edit)
        form.addRow("Zip", self.zip_edit)
        form.addRow("Metric", self.metric_edit)
        form.addRow("", self.burst_check)
        self.setLayout(form)
        self.set_number(number)
        self.tool_combo.currentTextChanged.connect(self._tool_changed)
        for edit in (self.name_edit, self.zip_edit, self.metric_edit):
            edit.textChanged.connect(lambda _t: self.changed.emit())
        self.params_edit.textChanged.connect(self.changed)
        self.burst_check.toggled.connect(lambda _on: self.changed.emit())
        self.remove_button.clicked.connect(lambda: self.removeRequested.emit(self))
        self._tool_changed(self.tool_combo.currentText())

    def set_number(self, number: int) -> None:
        self.number = number
        self.setTitle(f"Test {number}")

    def _tool_changed(self, tool: str) -> None:
        known = TOOLS.get(tool)
        if known is not None:
            self.params_edit.setToolTip(f"{tool}'s parameters: " + ", ".join(sorted(known.params)))
        self.changed.emit()

    def mapping(self) -> dict[str, object]:
        """The ``[[tests]]`` table; ``PlanError`` for a parameter line that is not key = value."""
        where = f"test #{self.number}"
        out: dict[str, object] = {
            "tool": self.tool_combo.currentText(),
            "params": parse_params(self.params_edit.toPlainText(), where),
        }
        for key, edit in (("name", self.name_edit), ("metric", self.metric_edit)):
            if edit.text().strip():
                out[key] = edit.text().strip()
        groups = parse_zip(self.zip_edit.text())
        if groups:
            out["zip"] = groups
        if self.burst_check.isChecked():
            out["probe"] = "burst"
        return out

    def set_test(self, test: TestPlan) -> None:
        self.tool_combo.setCurrentText(test.tool)
        self.name_edit.setText(test.name if test.name != test.tool else "")
        self.params_edit.setPlainText(params_text(test.axes))
        self.zip_edit.setText(zip_text(test.zip))
        self.metric_edit.setText(test.metric)
        self.burst_check.setChecked(test.probe == "burst")


class TestsEditor(QWidget):
    """The tests, in plan order; ``changed`` on any edit."""

    __test__ = False
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.boxes: list[TestBox] = []
        self.add_button = QPushButton("Add test")
        self.add_button.setObjectName("campaign_add_test")
        self.add_button.clicked.connect(lambda: self.add_test())
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.add_button)

    def add_test(self, test: TestPlan | None = None, *, tool: str = "ping") -> TestBox:
        box = TestBox(len(self.boxes) + 1)
        if test is not None:
            box.set_test(test)
        else:
            box.tool_combo.setCurrentText(tool)
            box.params_edit.setPlainText(DEFAULT_PARAMS.get(tool, ""))
        box.changed.connect(self.changed)
        box.removeRequested.connect(self._remove)
        self._layout.insertWidget(len(self.boxes), box)
        self.boxes.append(box)
        self.changed.emit()
        return box

    def _remove(self, box: TestBox) -> None:
        self.boxes.remove(box)
        box.setParent(None)
        box.deleteLater()
        for number, other in enumerate(self.boxes, start=1):
            other.set_number(number)
        self.changed.emit()

    def set_tests(self, tests: tuple[TestPlan, ...]) -> None:
        for box in list(self.boxes):
            self.boxes.remove(box)
            box.setParent(None)
            box.deleteLater()
        for test in tests:
            self.add_test(test)

    def mapping(self) -> list[dict[str, object]]:
        return [box.mapping() for box in self.boxes]
