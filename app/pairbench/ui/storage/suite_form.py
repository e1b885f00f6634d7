"""The storage suite's form: host, test, target and the suite's parameters, with the
estimated duration; it gives a ``SuiteRequest`` or says what is wrong, in words."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from pairbench.domain import LOCAL_PAIR, Host
from pairbench.domain.storage import (
    DEFAULT_IODEPTH,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PRECONDITION_PASSES,
    DEFAULT_ROUND_SECONDS,
    SteadyRule,
    StorageTest,
    SuiteParams,
    estimate_text,
    parse_size,
    stages_of,
)
from pairbench.services.hosts import list_hosts
from pairbench.services.library import Library
from pairbench.services.storage import MAX_IODEPTH, MAX_THREADS, SuiteRequest
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.form_rows import NOTE_STYLE

LOCAL_TITLE = f"{LOCAL_PAIR.name} — this computer"


def _spin(low: int, high: int, value: int, suffix: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setSuffix(suffix)
    return spin


def jobs_per_round(test: StorageTest) -> int:
    return sum(len(stage.jobs) for stage in stages_of(test))


class SuiteForm(QWidget):
    """The suite's choices; ``changed`` whenever one changes (the estimate follows)."""

    changed = Signal()
    hostsFailed = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host_combo = QComboBox()
        self.host_combo.setObjectName("storage_host")
        self.host_combo.addItem(LOCAL_TITLE, LOCAL_PAIR.name)
        self.test_combo = QComboBox()
        self.test_combo.setObjectName("storage_test")
        for test in StorageTest:
            jobs = jobs_per_round(test)
            self.test_combo.addItem(f"{test.value} ({jobs} jobs a round)", test.value)
        self.target_edit = QLineEdit()
        self.target_edit.setObjectName("storage_target")
        self.target_edit.setPlaceholderText("/dev/nvme1n1 or /mnt/data")
        self.target_edit.setToolTip(
            "A block device (/dev/nvme1n1: its data is destroyed) or a directory such as "
            "/mnt/data, where the suite writes its test file"
        )
        self.size_edit = QLineEdit()
        self.size_edit.setObjectName("storage_size")
        self.size_edit.setPlaceholderText("e.g. 4GiB")
        self.size_edit.setToolTip("The test file's size, or a device's range (empty: all of it)")
        self.threads_spin = _spin(0, MAX_THREADS, 0)
        self.threads_spin.setSpecialValueText("host's CPUs, at most 8")
        self.threads_spin.setToolTip(
            "fio's numjobs, capped as CloudHarmony caps it: at most 8, and 2 per CPU"
        )
        self.iodepth_spin = _spin(1, MAX_IODEPTH, DEFAULT_IODEPTH)
        self.round_spin = _spin(1, 3600, DEFAULT_ROUND_SECONDS, " s")
        self.rounds_spin = _spin(5, 1000, DEFAULT_MAX_ROUNDS)
        self.passes_spin = _spin(0, 5, DEFAULT_PRECONDITION_PASSES)
        self.steady_combo = QComboBox()
        self.steady_combo.setObjectName("storage_steady_state")
        self.steady_combo.addItem("PTS (the specification's rule)", SteadyRule.PTS.value)
        self.steady_combo.addItem(
            "CloudHarmony (its units and roundings)", SteadyRule.CLOUDHARMONY.value
        )
        self.steady_combo.setToolTip(
            "CloudHarmony's arithmetic ends a stage where a published CloudHarmony study did"
        )
        self.purge_check = QCheckBox("Purge a device first (blkdiscard, else a zero fill)")
        self.purge_check.setChecked(True)
        self.force_check = QCheckBox("Force, even over a file system")
        self.force_check.setToolTip(
            "Run on a device that holds a file system or partitions (their data is destroyed)"
        )
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("optional, e.g. OCI block volume")
        self.estimate_label = QLabel()
        self.estimate_label.setObjectName("storage_estimate")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setStyleSheet(NOTE_STYLE)

        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Host", self.host_combo)
        form.addRow("Test", self.test_combo)
        form.addRow("Target", self.target_edit)
        form.addRow("Size", self.size_edit)
        form.addRow("Threads", self.threads_spin)
        form.addRow("I/O depth", self.iodepth_spin)
        form.addRow("Round length", self.round_spin)
        form.addRow("Max rounds", self.rounds_spin)
        form.addRow("Precondition passes", self.passes_spin)
        form.addRow("Steady state", self.steady_combo)
        form.addRow(self.purge_check)
        form.addRow(self.force_check)
        form.addRow("Label", self.label_edit)
        form.addRow(self.estimate_label)

        for edit in (self.target_edit, self.size_edit):
            edit.textChanged.connect(self._changed)
        for spin in (
            self.threads_spin,
            self.iodepth_spin,
            self.round_spin,
            self.rounds_spin,
            self.passes_spin,
        ):
            spin.valueChanged.connect(self._changed)
        self.test_combo.currentIndexChanged.connect(self._changed)
        self._changed()

    # -- hosts -------------------------------------------------------------------------------

    def refresh_hosts(self) -> None:
        """Reload the saved hosts (through the engine thread); ``local`` is always offered."""

        async def job(library: Library) -> list[Host]:
            return list_hosts(library)

        def done(hosts: list[Host]) -> None:
            if shiboken6.isValid(self):
                self.set_hosts([h.name for h in hosts])

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self.hostsFailed.emit(f"Could not read the hosts from the library: {error}")

        self.bridge.call(job, done, failed)

    def set_hosts(self, names: list[str]) -> None:
        """Offer ``local`` and ``names``, keeping the current choice."""
        current = self.host()
        self.host_combo.clear()
        self.host_combo.addItem(LOCAL_TITLE, LOCAL_PAIR.name)
        for name in names:
            if name != LOCAL_PAIR.name:
                self.host_combo.addItem(name, name)
        self.select_host(current)

    def select_host(self, name: str) -> bool:
        index = self.host_combo.findData(name)
        if index >= 0:
            self.host_combo.setCurrentIndex(index)
        return index >= 0

    def host(self) -> str:
        return str(self.host_combo.currentData() or LOCAL_PAIR.name)

    # -- values ------------------------------------------------------------------------------

    def test(self) -> StorageTest:
        return StorageTest(str(self.test_combo.currentData()))

    def select_test(self, test: StorageTest) -> None:
        self.test_combo.setCurrentIndex(self.test_combo.findData(test.value))

    def target(self) -> str:
        return self.target_edit.text().strip()

    @property
    def on_device(self) -> bool:
        return self.target().startswith("/dev/")

    def size_bytes(self) -> int:
        """The size in bytes (0 when empty); ``ValueError`` for text that is no size."""
        text = self.size_edit.text().strip()
        return parse_size(text) if text else 0

    def _changed(self) -> None:
        latency = self.test() is StorageTest.LATENCY
        tip = "The latency test runs one thread at queue depth 1" if latency else ""
        for spin in (self.threads_spin, self.iodepth_spin):
            spin.setEnabled(not latency)
            spin.setToolTip(tip)
        self.estimate_label.setText(self.estimate())
        self.changed.emit()

    def estimate(self) -> str:
        """How long the suite's jobs take (from 5 rounds to the maximum), said before Start."""
        params = SuiteParams(
            self.test(),
            self.target() or "/",
            round_seconds=self.round_spin.value(),
            max_rounds=self.rounds_spin.value(),
        )
        jobs = jobs_per_round(params.test)
        text = f"Estimated: {estimate_text(params)}; {jobs} jobs a round"
        if self.passes_spin.value():
            text += ", plus preconditioning (writing the target's range "
            text += f"{self.passes_spin.value()}×)"
        return text

    def request(self, confirm: str = "") -> SuiteRequest | str:
        """The request of the form's values, or what to fix (for the user)."""
        target = self.target()
        if not target:
            return "Choose a target: a device under /dev, or a directory on the host."
        try:
            size = self.size_bytes()
        except ValueError as exc:
            return f"Size: {exc}"
        if not target.startswith("/dev/") and size <= 0:
            return (
                f"A directory target needs the size of the test file to write in {target}, "
                "e.g. 4GiB."
            )
        threads = self.threads_spin.value()
        return SuiteRequest(
            host=self.host(),
            test=self.test(),
            target=target,
            size=size,
            threads=threads or None,
            iodepth=self.iodepth_spin.value(),
            round_seconds=self.round_spin.value(),
            max_rounds=self.rounds_spin.value(),
            precondition_passes=self.passes_spin.value(),
            purge=self.purge_check.isChecked(),
            confirm=confirm,
            force=self.force_check.isChecked(),
            label=self.label_edit.text().strip(),
            steady_state=SteadyRule(str(self.steady_combo.currentData())),
        )
