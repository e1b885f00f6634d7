"""The plan's tests: one box per test (tool, ``key = value`` parameter lines where a
comma-separated value is an axis, zip groups, metric, and what each run is: one run, a
burst probe or a storage suite), added and removed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
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

from pairbench.domain.campaign import BURST, STORAGE, TestPlan
from pairbench.tools.registry import TOOLS
from pairbench.ui.campaign.plan_text import params_text, parse_params, parse_zip, zip_text

DEFAULT_PARAMS = {"ping": "count = 5\ninterval = 0.2", "iperf3": "duration = 5\nstreams = 1, 4"}
PROBE_CHOICES = (
    ("", "one run"),
    (BURST, "a burst probe (iperf3)"),
    (STORAGE, "a storage suite (fio)"),
)
PROBE_TOOLS = {BURST: "iperf3", STORAGE: "fio"}
# A storage suite's parameters are `pairbench storage run`'s; a directory target is safe.
STORAGE_PARAMS = "test = iops, latency, throughput\ntarget = /mnt/pairbench\nsize = 4GiB"


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
        self.probe_combo = QComboBox()
        for probe, text in PROBE_CHOICES:
            self.probe_combo.addItem(text, probe)
        self.probe_combo.setToolTip(
            "Each run of this test: one run of the tool; a burst probe (iperf3 until the drop to "
            "baseline); or a storage suite (fio, SNIA-PTS style) on the pair's server host, "
            "whose parameters are those of `pairbench storage run` (test, target, size, ...)"
        )
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
        form.addRow("Each run", self.probe_combo)
        self.setLayout(form)
        self.set_number(number)
        self.tool_combo.currentTextChanged.connect(self._tool_changed)
        for edit in (self.name_edit, self.zip_edit, self.metric_edit):
            edit.textChanged.connect(lambda _t: self.changed.emit())
        self.params_edit.textChanged.connect(self.changed)
        self.probe_combo.currentIndexChanged.connect(self._probe_changed)
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

    def _probe_changed(self, _index: int) -> None:
        """A probe runs one tool: the tool follows it (iperf3, fio)."""
        probe = str(self.probe_combo.currentData() or "")
        tool = PROBE_TOOLS.get(probe)
        if tool is not None:
            self.tool_combo.setCurrentText(tool)
        if probe == STORAGE and not self.params_edit.toPlainText().strip():
            self.params_edit.setPlainText(STORAGE_PARAMS)
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
        probe = str(self.probe_combo.currentData() or "")
        if probe:
            out["probe"] = probe
        return out

    def set_test(self, test: TestPlan) -> None:
        self.tool_combo.setCurrentText(test.tool)
        self.name_edit.setText(test.name if test.name != test.tool else "")
        self.params_edit.setPlainText(params_text(test.axes))
        self.zip_edit.setText(zip_text(test.zip))
        self.metric_edit.setText(test.metric)
        index = self.probe_combo.findData(test.probe)
        self.probe_combo.setCurrentIndex(max(0, index))


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
