"""The preview of an OpenSSH config import: a checkbox per host, what is skipped and why."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.host_text import describe_host
from pairbench.services.ssh_import import ImportPlan
from pairbench.ui.hosts.form_rows import NOTE_STYLE

WARNING_COLOR = Qt.GlobalColor.darkYellow


class SshImportDialog(QDialog):
    """Lists the hosts a config gives; the checked ones are added when the user confirms."""

    def __init__(self, plan: ImportPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        source = str(plan.source) if plan.source is not None else "~/.ssh/config"
        self.setWindowTitle(f"Import hosts from {source}")
        self.setModal(True)
        self.resize(720, 420)
        self.plan = plan
        heading = QLabel(
            f"{len(plan.planned)} host(s) in {source} can be added"
            + (f", {len(plan.skipped)} skipped" if plan.skipped else "")
            + ". Uncheck the ones you do not want."
        )
        heading.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Host", "Details"])
        self.tree.setRootIsDecorated(True)
        self.items: dict[str, QTreeWidgetItem] = {}
        for planned in plan.planned:
            host = planned.host
            details = describe_host(host)
            item = QTreeWidgetItem([host.name, details])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            for warning in plan.warnings_of(host.name):
                child = QTreeWidgetItem(["", warning])
                child.setForeground(1, WARNING_COLOR)
                child.setToolTip(1, warning)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
            self.items[host.name] = item
        for alias, reason in plan.skipped:
            item = QTreeWidgetItem([alias, f"skipped: {reason}"])
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            item.setToolTip(1, reason)
            self.tree.addTopLevelItem(item)
        self.tree.resizeColumnToContents(0)
        self.tree.itemChanged.connect(self._update_button)
        note = QLabel(
            "Each host is resolved as ssh -G resolves it. A ProxyJump to one alias that is added "
            "too (or stored already) is kept as that jump host; other hops and ProxyCommand are "
            "kept with the host."
        )
        note.setWordWrap(True)
        note.setStyleSheet(NOTE_STYLE)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.add_button = QPushButton("Add selected")
        self.add_button.setDefault(True)
        self.buttons.addButton(self.add_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.tree, 1)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self._update_button()

    def chosen(self) -> list[str]:
        """The names of the checked hosts."""
        return [
            name for name, item in self.items.items() if item.checkState(0) == Qt.CheckState.Checked
        ]

    def set_checked(self, name: str, checked: bool) -> None:
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        self.items[name].setCheckState(0, state)

    def _update_button(self) -> None:
        count = len(self.chosen())
        self.add_button.setEnabled(count > 0)
        self.add_button.setText(f"Add {count} host(s)" if count else "Add selected")
