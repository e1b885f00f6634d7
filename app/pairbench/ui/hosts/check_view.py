"""A pair check's result: per host reachability, tool versions and problems; data path, clocks.

An unknown host key is shown with its fingerprint and an explicit Accept button; accepting
re-runs the check with ``accept_new_host_key`` (which pins the key).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.host_text import key_fingerprint
from pairbench.services.pair_check import (
    CheckReport,
    HostCheck,
    clock_line,
    data_path_line,
    pair_heading,
    verdict_line,
)
from pairbench.services.tool_install import INSTALLABLE
from pairbench.ui.hosts.tool_install_dialog import install_label
from pairbench.ui.library.message_bar import BANNER

OK_COLOR = QColor("#1b7f3b")
BAD_COLOR = QColor("#b3261e")
WARN_COLOR = QColor("#9a6700")


def _sentence(line: str) -> tuple[str, str]:
    """``"data path: ok, ..."`` → ("Data path", "ok, ...")."""
    head, _, rest = line.partition(": ")
    return head[:1].upper() + head[1:], rest


class CheckView(QWidget):
    """Shows the last check of a pair; ``acceptKeyRequested`` asks for a re-run accepting keys."""

    acceptKeyRequested = Signal()
    installRequested = Signal(str, str)  # host, tool: a missing tool Pairbench can build

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: CheckReport | None = None
        self.install_buttons: list[QPushButton] = []  # "Install uperf on HOST" in the result
        self._offers: list[tuple[QTreeWidgetItem, QPushButton]] = []
        self.heading = QLabel("Select a pair and press Check to test it.")
        self.heading.setWordWrap(True)
        self.verdict = QLabel()
        font = self.verdict.font()
        font.setBold(True)
        self.verdict.setFont(font)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["", "Result"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.tree.setAlternatingRowColors(True)

        self.key_box = QFrame()
        self.key_box.setObjectName("keyBox")
        self.key_box.setStyleSheet(BANNER.format(name="keyBox", bg="#fff4ce", border="#c9a227"))
        self.key_label = QLabel()
        self.key_label.setWordWrap(True)
        self.key_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.accept_button = QPushButton("Accept and pin")
        self.accept_button.setToolTip(
            "Trust this key for this host from now on (it is pinned in the library); "
            "check the fingerprint on the host first, e.g. ssh-keygen -lf "
            "/etc/ssh/ssh_host_ed25519_key.pub"
        )
        self.accept_button.clicked.connect(self.acceptKeyRequested)
        key_row = QHBoxLayout(self.key_box)
        key_row.addWidget(self.key_label, 1)
        key_row.addWidget(self.accept_button, 0, Qt.AlignmentFlag.AlignTop)
        self.key_box.hide()

        self.pinned_label = QLabel()
        self.pinned_label.setWordWrap(True)
        self.pinned_label.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.verdict)
        layout.addWidget(self.key_box)
        layout.addWidget(self.pinned_label)
        layout.addWidget(self.tree, 1)

    # -- states ------------------------------------------------------------------------------

    def show_busy(self, text: str) -> None:
        self.heading.setText(text)
        self.verdict.clear()
        self.accept_button.setEnabled(False)

    def show_failure(self, text: str) -> None:
        self.report = None
        self.tree.clear()
        self.key_box.hide()
        self.pinned_label.hide()
        self.heading.setText(text)
        self.verdict.setText("check failed")
        self.verdict.setStyleSheet(f"color: {BAD_COLOR.name()};")

    def show_report(self, report: CheckReport) -> None:
        self.report = report
        check = report.check
        self.heading.setText(pair_heading(report.pair))
        ready = report.ready
        self.verdict.setText(verdict_line(report.pair, ready))
        self.verdict.setStyleSheet(f"color: {(OK_COLOR if ready else BAD_COLOR).name()};")
        self.tree.clear()
        self.install_buttons = []
        self._offers = []
        unknown = {key.host: key.fingerprint for key in report.unknown_keys}
        for role, host_check in (("Client", check.client), ("Server", check.server)):
            item = self._host_item(role, host_check, report.tool, unknown.get(host_check.name))
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
        for line, ok in (
            (data_path_line(report.pair, check), bool(check.data_path_ok)),
            (clock_line(check), check.clock_offset_s is not None),
        ):
            head, rest = _sentence(line)
            item = QTreeWidgetItem([head, rest])
            item.setForeground(1, QBrush(OK_COLOR if ok else BAD_COLOR))
            self.tree.addTopLevelItem(item)
        unique = list(dict.fromkeys(check.problems))  # one host as client and server: once
        if unique:
            problems = QTreeWidgetItem(["Problems", f"{len(unique)}"])
            for problem in unique:
                child = QTreeWidgetItem(["", problem])
                child.setToolTip(1, problem)
                child.setForeground(1, QBrush(WARN_COLOR))
                problems.addChild(child)
            self.tree.addTopLevelItem(problems)
            problems.setExpanded(True)
        for offer, button in self._offers:  # widgets go in once their items are in the tree
            parent = offer.parent()
            if parent is not None:
                parent.setExpanded(True)
            self.tree.setItemWidget(offer, 1, button)
        self._show_keys(report)

    def _host_item(
        self, role: str, check: HostCheck, tool: str | None, unknown_key: str | None
    ) -> QTreeWidgetItem:
        if not check.reachable:
            error = check.error or "unknown error"
            if unknown_key is not None:
                error = f"unknown host key {unknown_key}: check it, then press Accept and pin"
            item = QTreeWidgetItem([f"{role} {check.name}", f"UNREACHABLE: {error}"])
            item.setForeground(1, QBrush(BAD_COLOR))
            item.setToolTip(1, check.error or "")
            return item
        item = QTreeWidgetItem([f"{role} {check.name}", "reachable"])
        item.setForeground(1, QBrush(OK_COLOR))
        for name, version in sorted(check.versions.items()):
            item.addChild(QTreeWidgetItem([name, version]))
        for name, hint in sorted(check.missing.items()):
            needed = " (needed)" if name == tool else ""
            child = QTreeWidgetItem([name, f"missing{needed}; install: {hint}"])
            child.setForeground(1, QBrush(WARN_COLOR))
            item.addChild(child)
            if name in INSTALLABLE:
                button = QPushButton(f"{install_label(name)} on {check.name}")
                button.setObjectName(f"install_{name}_{check.name}")
                button.clicked.connect(
                    lambda _checked=False, h=check.name, t=name: self.installRequested.emit(h, t)
                )
                self.install_buttons.append(button)
                offer = QTreeWidgetItem(["", ""])
                child.addChild(offer)
                self._offers.append((offer, button))
        return item

    def _show_keys(self, report: CheckReport) -> None:
        if report.unknown_keys:
            lines = [
                "<b>Unknown host key.</b> The connection was refused because nobody has accepted "
                "this key yet. Compare the fingerprint with the host's own, then accept it:"
            ]
            lines += [
                f"&nbsp;&nbsp;{key.host}: <code>{key.fingerprint}</code>"
                for key in report.unknown_keys
            ]
            self.key_label.setText("<br>".join(lines))
            self.accept_button.setEnabled(True)
            self.key_box.show()
        else:
            self.key_box.hide()
        if report.newly_pinned:
            self.pinned_label.setText(
                "\n".join(
                    f"Pinned the new host key of {name}: {key_fingerprint(key)}"
                    for name, key in report.newly_pinned
                )
            )
            self.pinned_label.show()
        else:
            self.pinned_label.hide()

    def texts(self) -> list[str]:
        """Every line of the result tree as "column0 column1" (for tests and copying)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem | None) -> None:
            if item is None:
                return
            out.append(f"{item.text(0)} {item.text(1)}".strip())
            for index in range(item.childCount()):
                walk(item.child(index))

        for index in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(index))
        return out
