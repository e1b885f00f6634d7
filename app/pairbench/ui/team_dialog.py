"""File ▸ Team library…: connect this library to a team library on PostgreSQL (the address
kept without a password; a password typed here goes to the OS keyring), see how it stands,
and publish what waits. The network work runs in a worker thread, never the GUI thread nor
the engine's loop."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.services.library import Library
from pairbench.services.team import (
    PushResult,
    TeamStatus,
    check_server,
    keep_connection,
    local_status,
    push_file,
    server_status,
)
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.form_rows import ERROR_STYLE, NOTE_STYLE
from pairbench.ui.library.jobs import call_for, error_text


def push_text(result: PushResult) -> str:
    """What "Publish now" did, in one line."""
    suites, campaigns = result.suites, result.campaigns
    there = len(result.skipped) + len(suites.skipped) + len(campaigns.skipped)
    return (
        f"Publish now: {len(result.pushed)} run(s), {len(suites.pushed)} storage suite(s), "
        f"{len(campaigns.pushed)} campaign(s) published; {there} already on the server"
    )


def status_html(st: TeamStatus, last_push: str = "") -> str:
    """How the team library stands, for the dialog (escaped), with what the last "Publish
    now" did."""
    e = html.escape
    lines = [
        f"<b>{e(st.url)}</b> — publishing as {e(st.name)}, automatic: {'on' if st.auto else 'off'}"
    ]
    if st.reachable and st.role:
        rights = "may publish" if st.can_publish else "read-only"
        held = "" if st.team_runs is None else f", {st.team_runs} run(s) on it"
        lines.append(f"Server reachable: role {e(st.role)} ({rights}), schema {st.schema}{held}")
    if st.reachable and st.error:
        lines.append(f"But: {e(st.error)}")
    elif st.error:
        lines.append(f"Server not reachable: {e(st.error)}")
    lines.append(f"Published from here: {st.published}; waiting in the outbox: {st.pending}")
    if st.suites_waiting or st.campaigns_waiting:
        lines.append(
            f"Also waiting: {st.suites_waiting} storage suite(s), "
            f"{st.campaigns_waiting} campaign(s) (published once their runs are)"
        )
    if last_push:
        lines.append(e(last_push))
    if st.last_error:
        lines.append(f"Last error: {e(st.last_error)}")
    return "<br>".join(lines)


class TeamDialog(QDialog):
    """The team library's settings and status; ``connected`` once a server is kept."""

    connected = Signal(str)  # the address kept

    def __init__(self, bridge: EngineBridge, library: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Team library")
        self.bridge = bridge
        self.library = library
        self.status: TeamStatus | None = None
        self.last_push = ""  # what the last "Publish now" did (shown with the status)
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("postgresql://alice@db.example.com/pairbench")
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("you@this computer (default)")
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("empty: ~/.pgpass or PGPASSWORD")
        self.password_edit.setToolTip(
            "Kept in the OS keyring, never in the library or a file; leave empty to use "
            "libpq's own ~/.pgpass or PGPASSWORD"
        )
        self.auto_check = QCheckBox("Publish every finished run automatically")
        self.auto_check.setChecked(True)
        self.connect_button = QPushButton("Connect")
        self.publish_button = QPushButton("Publish now")
        self.publish_button.setEnabled(False)
        self.state_label = QLabel("Reading the library's settings…")
        self.state_label.setWordWrap(True)
        self.state_label.setStyleSheet(NOTE_STYLE)
        form = QFormLayout()
        form.addRow("Server", self.url_edit)
        form.addRow("Publish as", self.name_edit)
        form.addRow("Password", self.password_edit)
        form.addRow("", self.auto_check)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.connect_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.publish_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.state_label)
        layout.addWidget(buttons)
        self.resize(620, 280)
        self.connect_button.clicked.connect(self.connect_server)
        self.publish_button.clicked.connect(self.publish_now)
        self.refresh()

    # -- reading ------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the settings (engine thread), then ask the server (a worker thread)."""

        async def job(lib: Library) -> TeamStatus | None:
            from pairbench.services.team import TeamSetupError

            try:
                base = local_status(lib)
            except TeamSetupError:
                return None
            return await asyncio.to_thread(server_status, base)

        call_for(self, self.bridge, job, self._show, self._failed)

    def _show(self, st: TeamStatus | None) -> None:
        self.status = st
        if st is None:
            self._say("This library has no team library yet: give the server's address.")
            return
        self.url_edit.setText(st.url)
        self.name_edit.setText(st.name)
        self.auto_check.setChecked(st.auto)
        self.publish_button.setEnabled(st.reachable and st.can_publish)
        self._say(status_html(st, self.last_push), error=bool(st.error))

    def _say(self, text: str, *, error: bool = False) -> None:
        self.state_label.setText(text)
        self.state_label.setStyleSheet(ERROR_STYLE if error else NOTE_STYLE)

    def _failed(self, error: BaseException) -> None:
        self.connect_button.setEnabled(True)
        self._say(html.escape(error_text(error)), error=True)

    # -- acting -------------------------------------------------------------------------------

    def connect_server(self) -> None:
        """Check the server (worker thread), keep it (engine thread), show its status."""
        url = self.url_edit.text().strip()
        name = self.name_edit.text().strip()
        password = self.password_edit.text() or None
        auto = self.auto_check.isChecked()
        self.connect_button.setEnabled(False)
        self._say("Connecting…")

        async def job(lib: Library) -> TeamStatus:
            clean = await asyncio.to_thread(check_server, url, password=password)
            keep_connection(lib, clean, name=name, auto=auto)
            return await asyncio.to_thread(server_status, local_status(lib))

        def done(st: TeamStatus) -> None:
            self.connect_button.setEnabled(True)
            self.password_edit.clear()
            self._show(st)
            self.connected.emit(st.url)

        call_for(self, self.bridge, job, done, self._failed)

    def publish_now(self) -> None:
        """Publish the outbox (and every finished run, suite and campaign not yet published) in
        a worker thread."""
        self.publish_button.setEnabled(False)
        self._say("Publishing…")
        path = self.library

        async def job(_lib: Library) -> PushResult:
            return await asyncio.to_thread(push_file, path, every=True)

        def done(result: PushResult) -> None:
            self.last_push = push_text(result)
            if result.error:
                self._say(html.escape(f"Stopped: {result.error}"), error=True)
            self.refresh()

        call_for(self, self.bridge, job, done, self._failed)
