"""The "Hosts" box: the hosts table, the keyring note and the host buttons."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QLabel, QMenu, QPushButton, QVBoxLayout, QWidget

from pairbench.domain import AuthMethod, Host
from pairbench.domain.host_text import format_tags, route_text
from pairbench.services.tool_install import INSTALLABLE
from pairbench.ui.hosts.tables import NameTable, button_row, cell
from pairbench.ui.hosts.tool_install_dialog import install_label

_LOGIN_WORDS = {
    AuthMethod.LOCAL: "this computer",
    AuthMethod.AGENT: "ssh-agent",
    AuthMethod.KEY: "key file",
    AuthMethod.PASSWORD: "password",
}


class HostsList(QGroupBox):
    """Shows hosts; its buttons only ask (the panel's actions answer)."""

    selectionChanged = Signal()
    addRequested = Signal()
    editRequested = Signal()
    removeRequested = Signal()
    importRequested = Signal()
    installRequested = Signal(str)  # tool, on the selected host

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Hosts", parent)
        self.table = NameTable(["Name", "Address", "Port", "User", "Login", "Jump", "Tags"])
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self.editRequested.emit())
        self.add_button = QPushButton("Add…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.import_button = QPushButton("Import from ~/.ssh/config…")
        self.install_button = QPushButton("Install tool")
        self.install_button.setObjectName("install_tool")
        self.install_button.setToolTip(
            "Build uperf or iperf3 3.21 from its pinned source on the selected host, in its "
            "user's ~/.local/bin"
        )
        install_menu = QMenu(self.install_button)
        for tool in INSTALLABLE:
            action = install_menu.addAction(f"{install_label(tool)} on this host…")
            action.triggered.connect(lambda _checked=False, t=tool: self.installRequested.emit(t))
        self.install_button.setMenu(install_menu)
        self.add_button.clicked.connect(self.addRequested)
        self.edit_button.clicked.connect(self.editRequested)
        self.remove_button.clicked.connect(self.removeRequested)
        self.import_button.clicked.connect(self.importRequested)
        self.keyring_note = QLabel()
        self.keyring_note.setWordWrap(True)
        self.keyring_note.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.keyring_note)
        # Two rows: the tab fits a 1280-pixel window beside the run panel.
        layout.addLayout(button_row(self.add_button, self.edit_button, self.remove_button, None))
        layout.addLayout(button_row(self.install_button, None, self.import_button))
        self._selection_changed()

    def show_hosts(self, hosts: list[Host]) -> None:
        """Fill the table (the built-in host greyed); the selection is the caller's."""
        rows = []
        for host in hosts:
            local = host.is_local
            cells = [
                cell(host.name),
                cell("this computer" if local else host.address),
                cell("" if local else str(host.port)),
                cell("" if local else host.user or "root"),
                cell(
                    _LOGIN_WORDS.get(host.auth, host.auth.value)
                    + (f" ({Path(host.key_path).name})" if host.key_path else ""),
                    host.key_path or None,
                ),
                cell(route_text(host), host.ssh.proxy_command),
                cell(format_tags(host.tags)),
            ]
            if local:
                for item in cells:
                    item.setForeground(self.palette().placeholderText())
            rows.append((host.name, cells))
        self.table.set_rows(rows)
        self._update_buttons()

    def show_keyring(self, keyring: tuple[bool, str] | None, uses_passwords: bool) -> None:
        """Say why passwords are not kept, when no OS keyring is there (⚠ if a host needs one)."""
        if keyring is None or keyring[0]:
            self.keyring_note.hide()
            return
        warn = "⚠ " if uses_passwords else ""
        self.keyring_note.setText(f"{warn}Passwords: {keyring[1]}.")
        self.keyring_note.show()

    def selected(self) -> str | None:
        return self.table.selected_name()

    def select(self, name: str | None) -> None:
        self.table.select_name(name)

    def _selection_changed(self) -> None:
        self._update_buttons()
        self.selectionChanged.emit()

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        self.edit_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)
        self.install_button.setEnabled(chosen)
