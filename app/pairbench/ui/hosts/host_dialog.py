"""The host dialog: name, address, port, user, login (agent / key file / password), jump, tags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from pairbench.domain import AuthMethod, Host
from pairbench.domain.host_text import tags_text
from pairbench.services.host_names import save_renamed_host
from pairbench.services.hosts import HostForm, save_edited_host, save_new_host
from pairbench.services.library import Library
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.hosts.form_rows import NOTE_STYLE, SavingDialog, blank_to_none

AUTH_CHOICES = (
    (AuthMethod.AGENT, "ssh-agent keys"),
    (AuthMethod.KEY, "Private key file"),
    (AuthMethod.PASSWORD, "Password"),
)
NO_JUMP = "(none: connect directly)"


class HostDialog(SavingDialog):
    """Adds a host, or edits one (its name stays). ``result_value`` is (Host, notes) once saved."""

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        hosts: list[Host],
        keyring: tuple[bool, str] | None,
        host: Host | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(bridge, f"Edit host {host.name}" if host else "Add host", parent)
        self.editing = host
        self.keyring = keyring
        self.setMinimumWidth(520)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. client-1 (letters, digits, '.', '_', '-')")
        self.address_edit = QLineEdit()
        self.address_edit.setPlaceholderText("IP address or DNS name")
        self.port_edit = QLineEdit()
        self.port_edit.setPlaceholderText("22")
        self.user_edit = QLineEdit()
        self.user_edit.setPlaceholderText("root")
        self.auth_combo = QComboBox()
        for method, text in AUTH_CHOICES:
            self.auth_combo.addItem(text, method)
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("~/.ssh/id_ed25519")
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self.browse_key)
        key_box = QWidget()
        key_row = QHBoxLayout(key_box)
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.browse_button)
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_note = QLabel()
        self.password_note.setWordWrap(True)
        self.password_note.setStyleSheet(NOTE_STYLE)
        self.jump_combo = QComboBox()
        self.jump_combo.addItem(NO_JUMP, None)
        for other in hosts:
            if not other.is_local and (host is None or other.name != host.name):
                self.jump_combo.addItem(other.name, other.name)
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText('role=client rack=r12 note="two words"')

        rows = self.rows
        rows.add("name", "Name", self.name_edit)
        rows.add("address", "Address", self.address_edit)
        rows.add("port", "SSH port", self.port_edit)
        rows.add("user", "User", self.user_edit)
        rows.add("auth", "Login", self.auth_combo)
        rows.add("key_path", "Key file", key_box)
        rows.fields["key_path"] = self.key_edit
        rows.add("password", "Password", self.password_edit, note=self.password_note)
        rows.add("jump", "Jump host", self.jump_combo)
        rows.add("tags", "Tags", self.tags_edit)
        self.finish_layout()

        if host is not None:
            self._fill(host)
        self.auth_combo.currentIndexChanged.connect(self._auth_changed)
        self._auth_changed()

    def _fill(self, host: Host) -> None:
        self.name_edit.setText(host.name)
        self.name_edit.setToolTip(
            "Renaming keeps the host's pinned keys, the hosts that jump through it and its "
            "storage suites."
        )
        self.address_edit.setText(host.address)
        if host.port != 22:
            self.port_edit.setText(str(host.port))
        self.user_edit.setText(host.user or "")
        index = self.auth_combo.findData(host.auth)
        self.auth_combo.setCurrentIndex(max(index, 0))
        self.key_edit.setText(host.key_path or "")
        if host.jump:
            index = self.jump_combo.findData(host.jump)
            if index < 0:
                self.jump_combo.addItem(host.jump, host.jump)
                index = self.jump_combo.count() - 1
            self.jump_combo.setCurrentIndex(index)
        self.tags_edit.setText(tags_text(host.tags))

    @property
    def auth(self) -> AuthMethod:
        return AuthMethod(self.auth_combo.currentData())

    def _auth_changed(self) -> None:
        auth = self.auth
        self.rows.set_visible("key_path", auth is AuthMethod.KEY)
        self.rows.set_visible("password", auth is AuthMethod.PASSWORD)
        available, reason = self.keyring or (True, "")
        if not available:
            self.password_edit.setEnabled(False)
            self.password_edit.setPlaceholderText("asked at each connection")
            self.password_note.setText(reason[:1].upper() + reason[1:] + ".")
        elif self.editing is not None and self.editing.auth is AuthMethod.PASSWORD:
            self.password_note.setText(
                "Leave empty to keep the stored password; a new one replaces it in the OS keyring."
            )
        else:
            self.password_note.setText(
                "Kept in the OS keyring, never in the library file."
                if self.keyring
                else "Kept in the OS keyring when one is available."
            )
        self.adjustSize()

    def browse_key(self) -> None:
        start = self.key_edit.text().strip() or str(Path.home() / ".ssh")
        path, _ = QFileDialog.getOpenFileName(
            self, "Private key file", str(Path(start).expanduser())
        )
        if path:
            self.key_edit.setText(path)

    def form(self) -> HostForm:
        """The form as typed (blank fields mean their defaults)."""
        auth = self.auth
        return HostForm(
            name=self.name_edit.text().strip(),
            address=self.address_edit.text().strip(),
            port=blank_to_none(self.port_edit.text()),
            user=blank_to_none(self.user_edit.text()),
            auth=auth,
            key_path=self.key_edit.text().strip() if auth is AuthMethod.KEY else None,
            jump=self.jump_combo.currentData(),
            tags=self.tags_edit.text(),
        )

    def password(self) -> str | None:
        if self.auth is not AuthMethod.PASSWORD or not self.password_edit.isEnabled():
            return None
        return self.password_edit.text() or None

    def make_job(self) -> EngineJob[Any]:
        form = self.form()
        password = self.password()
        editing = self.editing

        async def job(lib: Library) -> tuple[Host, list[str]]:
            if editing is None:
                return save_new_host(lib, form, password)
            if form.name != editing.name:
                return save_renamed_host(lib, editing.name, form, password)
            return save_edited_host(lib, editing.name, form, password)

        return job
