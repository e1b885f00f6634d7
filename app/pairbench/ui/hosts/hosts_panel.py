"""The hosts and pairs panel: lists, add / edit / remove, ~/.ssh/config import, pair check.

Every read and write goes through the bridge (the engine thread's library connection); the
panel only draws. Errors and refusals appear in the panel's message bar, never as a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.domain.host_text import format_tags
from pairbench.remote.secrets import keyring_status
from pairbench.services.hosts import (
    check_edit_allowed,
    check_pair_edit_allowed,
    delete_host,
    delete_pair,
    hosts_and_pairs,
)
from pairbench.services.library import Library
from pairbench.services.pair_check import CheckReport, GivenSecrets, run_check
from pairbench.services.ssh_import import ImportPlan, ImportResult, apply_import, read_plan
from pairbench.services.tool_install import INSTALLABLE
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.hosts.check_view import CheckView
from pairbench.ui.hosts.host_dialog import HostDialog
from pairbench.ui.hosts.pair_dialog import PairDialog
from pairbench.ui.hosts.ssh_import_dialog import SshImportDialog
from pairbench.ui.hosts.tool_install_dialog import ToolInstallDialog, install_label
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.message_bar import MessageBar

_LOGIN_WORDS = {
    AuthMethod.LOCAL: "this computer",
    AuthMethod.AGENT: "ssh-agent",
    AuthMethod.KEY: "key file",
    AuthMethod.PASSWORD: "password",
}


def _name(item: Host | HostPair) -> str:
    return item.name


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def _cell(text: str, tooltip: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(tooltip if tooltip is not None else text)
    return item


class HostsPanel(QWidget):
    """Hosts and pairs of the library, and the check of a pair."""

    changed = Signal()  # hosts or pairs were added, edited or removed
    refreshed = Signal()  # the lists were (re)loaded
    checkFinished = Signal(object)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.hosts: list[Host] = []
        self.pairs: list[HostPair] = []
        self.keyring: tuple[bool, str] | None = None
        self.dialog: QDialog | None = None  # the open add/edit/import dialog, if any
        self._secrets: dict[str, str] = {}
        self._passphrases: dict[str, str] = {}
        self.checking = False

        self.message = MessageBar()

        self.hosts_table = _table(["Name", "Address", "Port", "User", "Login", "Jump", "Tags"])
        self.hosts_table.itemSelectionChanged.connect(self._update_buttons)
        self.hosts_table.doubleClicked.connect(lambda _index: self.edit_host())
        self.add_host_button = QPushButton("Add…")
        self.edit_host_button = QPushButton("Edit…")
        self.remove_host_button = QPushButton("Remove")
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
            action.triggered.connect(lambda _checked=False, t=tool: self.install_tool(t))
        self.install_button.setMenu(install_menu)
        self.add_host_button.clicked.connect(self.add_host)
        self.edit_host_button.clicked.connect(self.edit_host)
        self.remove_host_button.clicked.connect(self.remove_host)
        self.import_button.clicked.connect(lambda: self.import_ssh_config())
        self.keyring_note = QLabel()
        self.keyring_note.setWordWrap(True)
        self.keyring_note.hide()
        hosts_box = QGroupBox("Hosts")
        hosts_layout = QVBoxLayout(hosts_box)
        hosts_layout.addWidget(self.hosts_table, 1)
        hosts_layout.addWidget(self.keyring_note)
        hosts_layout.addLayout(
            self._button_row(
                self.add_host_button,
                self.edit_host_button,
                self.remove_host_button,
                self.install_button,
                None,
                self.import_button,
            )
        )

        self.pairs_table = _table(
            ["Name", "Client → server", "Data address", "Tags", "Description"]
        )
        self.pairs_table.itemSelectionChanged.connect(self._update_buttons)
        self.pairs_table.doubleClicked.connect(lambda _index: self.edit_pair())
        self.add_pair_button = QPushButton("Add…")
        self.edit_pair_button = QPushButton("Edit…")
        self.remove_pair_button = QPushButton("Remove")
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip(
            "Connect to both hosts, list tool versions, ping the data address, compare clocks"
        )
        self.add_pair_button.clicked.connect(self.add_pair)
        self.edit_pair_button.clicked.connect(self.edit_pair)
        self.remove_pair_button.clicked.connect(self.remove_pair)
        self.check_button.clicked.connect(lambda: self.check_pair())
        pairs_box = QGroupBox("Pairs")
        pairs_layout = QVBoxLayout(pairs_box)
        pairs_layout.addWidget(self.pairs_table, 1)
        pairs_layout.addLayout(
            self._button_row(
                self.add_pair_button,
                self.edit_pair_button,
                self.remove_pair_button,
                None,
                self.check_button,
            )
        )

        self.check_view = CheckView()
        self.check_view.acceptKeyRequested.connect(self.accept_host_key)
        self.check_view.installRequested.connect(self._install_from_check)
        check_box = QGroupBox("Pair check")
        check_layout = QVBoxLayout(check_box)
        check_layout.addWidget(self.check_view)

        lists = QSplitter(Qt.Orientation.Horizontal)
        lists.addWidget(hosts_box)
        lists.addWidget(pairs_box)
        lists.setStretchFactor(0, 1)
        lists.setStretchFactor(1, 1)
        lists.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(lists)
        self.splitter.addWidget(check_box)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.splitter, 1)

        self._update_buttons()
        self.refresh()
        self._load_keyring_status()

    @staticmethod
    def _button_row(*buttons: QPushButton | None) -> QHBoxLayout:
        row = QHBoxLayout()
        for button in buttons:
            if button is None:
                row.addStretch(1)
            else:
                row.addWidget(button)
        return row

    def _call(
        self,
        job: EngineJob[Any],
        on_done: Any,
        on_error: Any = None,
    ) -> None:
        call_for(self, self.bridge, job, on_done, on_error or self._show_error)

    def _show_error(self, error: BaseException) -> None:
        self.message.show_message("error", error_text(error))

    # -- loading -----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload hosts and pairs (off the GUI thread)."""

        async def job(lib: Library) -> tuple[list[Host], list[HostPair]]:
            return hosts_and_pairs(lib)

        self._call(job, self._loaded)

    def _loaded(self, value: tuple[list[Host], list[HostPair]]) -> None:
        selected_host = self.selected_host()
        selected_pair = self.selected_pair()
        self.hosts, self.pairs = value
        self._fill_hosts()
        self._fill_pairs()
        self._select(self.hosts_table, [h.name for h in self.hosts], selected_host)
        self._select(
            self.pairs_table,
            [p.name for p in self.pairs],
            selected_pair or (self.pairs[0].name if self.pairs else None),
        )
        self._update_keyring_note()
        self._update_buttons()
        self.refreshed.emit()

    def _load_keyring_status(self) -> None:
        async def job(_lib: Library) -> tuple[bool, str]:
            return keyring_status()

        def done(status: tuple[bool, str]) -> None:
            self.keyring = status
            self._update_keyring_note()

        self._call(job, done)

    def _update_keyring_note(self) -> None:
        if self.keyring is None or self.keyring[0]:
            self.keyring_note.hide()
            return
        uses_password = any(h.auth is AuthMethod.PASSWORD for h in self.hosts)
        reason = self.keyring[1]
        self.keyring_note.setText(("⚠ " if uses_password else "") + "Passwords: " + reason + ".")
        self.keyring_note.show()

    def _fill_hosts(self) -> None:
        table = self.hosts_table
        table.setRowCount(len(self.hosts))
        for row, host in enumerate(self.hosts):
            local = host.is_local
            cells = [
                _cell(host.name),
                _cell("this computer" if local else host.address),
                _cell("" if local else str(host.port)),
                _cell("" if local else host.user or "root"),
                _cell(
                    _LOGIN_WORDS.get(host.auth, host.auth.value)
                    + (f" ({Path(host.key_path).name})" if host.key_path else ""),
                    host.key_path or None,
                ),
                _cell(host.jump or ""),
                _cell(format_tags(host.tags)),
            ]
            for column, item in enumerate(cells):
                if local:
                    item.setForeground(self.palette().placeholderText())
                table.setItem(row, column, item)
        table.resizeColumnsToContents()

    def _fill_pairs(self) -> None:
        table = self.pairs_table
        table.setRowCount(len(self.pairs))
        for row, pair in enumerate(self.pairs):
            data = pair.data_address or f"{pair.server.address} (server's)"
            cells = [
                _cell(pair.name),
                _cell(f"{pair.client.name} → {pair.server.name}"),
                _cell(data),
                _cell(format_tags(pair.tags)),
                _cell(pair.description),
            ]
            for column, item in enumerate(cells):
                table.setItem(row, column, item)
        table.resizeColumnsToContents()

    @staticmethod
    def _select(table: QTableWidget, names: list[str], name: str | None) -> None:
        if name in names:
            table.selectRow(names.index(name))

    def selected_host(self) -> str | None:
        rows = self.hosts_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.hosts):
            return None
        return self.hosts[rows[0].row()].name

    def selected_pair(self) -> str | None:
        rows = self.pairs_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.pairs):
            return None
        return self.pairs[rows[0].row()].name

    def select_host(self, name: str) -> None:
        self._select(self.hosts_table, [h.name for h in self.hosts], name)

    def select_pair(self, name: str) -> None:
        self._select(self.pairs_table, [p.name for p in self.pairs], name)

    def _host(self, name: str | None) -> Host | None:
        return next((h for h in self.hosts if h.name == name), None)

    def _pair(self, name: str | None) -> HostPair | None:
        return next((p for p in self.pairs if p.name == name), None)

    def _update_buttons(self) -> None:
        has_host = self.selected_host() is not None
        has_pair = self.selected_pair() is not None
        self.edit_host_button.setEnabled(has_host)
        self.remove_host_button.setEnabled(has_host)
        self.install_button.setEnabled(has_host)
        self.edit_pair_button.setEnabled(has_pair)
        self.remove_pair_button.setEnabled(has_pair)
        self.check_button.setEnabled(has_pair and not self.checking)

    # -- hosts -------------------------------------------------------------------------------

    def add_host(self) -> HostDialog:
        """Open the host dialog for a new host."""
        return self._open_host_dialog(None)

    def edit_host(self) -> HostDialog | None:
        """Open the host dialog for the selected host (the built-in one is refused)."""
        host = self._host(self.selected_host())
        if host is None:
            return None
        try:
            check_edit_allowed(host)
        except ValueError as exc:
            self.message.show_message("error", str(exc))
            return None
        return self._open_host_dialog(host)

    def _open_host_dialog(self, host: Host | None) -> HostDialog:
        dialog = HostDialog(
            self.bridge, hosts=self.hosts, keyring=self.keyring, host=host, parent=self
        )
        dialog.accepted.connect(lambda: self._host_saved(dialog, host is None))
        self._show_dialog(dialog)
        return dialog

    def _show_dialog(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        dialog.open()

    def _dialog_closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def _host_saved(self, dialog: HostDialog, added: bool) -> None:
        host, notes = dialog.result_value
        # Known at once (the reload follows): a dialog opened right away offers it already.
        self.hosts = sorted([h for h in self.hosts if h.name != host.name] + [host], key=_name)
        self._fill_hosts()
        words = "added" if added else "updated"
        self.message.show_message(
            "ok",
            "\n".join([f"{words.capitalize()} host {host.name}."] + [f"Note: {n}" for n in notes]),
        )
        self._after_change(select_host=host.name)

    def _after_change(
        self, *, select_host: str | None = None, select_pair: str | None = None
    ) -> None:
        def reselect() -> None:
            self.refreshed.disconnect(reselect)
            if select_host:
                self.select_host(select_host)
            if select_pair:
                self.select_pair(select_pair)

        self.refreshed.connect(reselect)
        self.refresh()
        self.changed.emit()

    def remove_host(self) -> None:
        """Remove the selected host after confirmation; refusals are shown in the panel."""
        host = self._host(self.selected_host())
        if host is None:
            return
        used = [p.name for p in self.pairs if host.name in (p.client.name, p.server.name)]
        jumped = [h.name for h in self.hosts if h.jump == host.name]
        refused = host.is_local or used or jumped
        if not refused and not self._confirm(
            "Remove host",
            f"Remove host {host.name} ({host.address})? Its pinned host keys and any stored "
            "password are forgotten. Runs already made are kept.",
        ):
            return
        name = host.name

        async def job(lib: Library) -> Host:
            return delete_host(lib, name)

        def done(_host: Host) -> None:
            self.message.show_message("ok", f"Removed host {name}.")
            self._after_change()

        self._call(job, done)

    # -- pairs -------------------------------------------------------------------------------

    def add_pair(self) -> PairDialog:
        """Open the pair dialog for a new pair."""
        return self._open_pair_dialog(None)

    def edit_pair(self) -> PairDialog | None:
        """Open the pair dialog for the selected pair (the built-in one is refused)."""
        pair = self._pair(self.selected_pair())
        if pair is None:
            return None
        try:
            check_pair_edit_allowed(pair.name)
        except ValueError as exc:
            self.message.show_message("error", str(exc))
            return None
        return self._open_pair_dialog(pair)

    def _open_pair_dialog(self, pair: HostPair | None) -> PairDialog:
        dialog = PairDialog(self.bridge, hosts=self.hosts, pair=pair, parent=self)

        def saved() -> None:
            new: HostPair = dialog.result_value
            self.pairs = sorted([p for p in self.pairs if p.name != new.name] + [new], key=_name)
            self._fill_pairs()
            words = "Added" if pair is None else "Updated"
            self.message.show_message(
                "ok",
                f"{words} pair {new.name}: {new.client.name} → {new.server.name} "
                f"({new.target_address}).",
            )
            self._after_change(select_pair=new.name)

        dialog.accepted.connect(saved)
        self._show_dialog(dialog)
        return dialog

    def remove_pair(self) -> None:
        """Remove the selected pair after confirmation (its runs stay)."""
        pair = self._pair(self.selected_pair())
        if pair is None:
            return
        if pair.name != "local" and not self._confirm(
            "Remove pair",
            f"Remove pair {pair.name} ({pair.client.name} → {pair.server.name})? "
            "Its runs stay in the library.",
        ):
            return
        name = pair.name

        async def job(lib: Library) -> None:
            delete_pair(lib, name)

        def done(_value: None) -> None:
            self.message.show_message("ok", f"Removed pair {name} (its runs stay in the library).")
            self._after_change()

        self._call(job, done)

    def _confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(
            self,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    # -- ~/.ssh/config -----------------------------------------------------------------------

    def import_ssh_config(self, path: Path | None = None) -> None:
        """Read an OpenSSH config (default ~/.ssh/config) and preview the hosts it gives."""
        self.import_button.setEnabled(False)

        async def job(lib: Library) -> ImportPlan:
            return read_plan(lib, path)

        def done(plan: ImportPlan) -> None:
            self.import_button.setEnabled(True)
            self._preview_import(plan)

        def failed(error: BaseException) -> None:
            self.import_button.setEnabled(True)
            self._show_error(error)

        self._call(job, done, failed)

    def _preview_import(self, plan: ImportPlan) -> None:
        if not plan.planned and not plan.skipped:
            where = plan.source or "~/.ssh/config"
            self.message.show_message("info", f"{where} names no concrete host to import.")
            return
        dialog = SshImportDialog(plan, parent=self)
        dialog.accepted.connect(lambda: self._apply_import(plan, dialog.chosen()))
        self._show_dialog(dialog)

    def _apply_import(self, plan: ImportPlan, chosen: list[str]) -> None:
        async def job(lib: Library) -> ImportResult:
            return apply_import(lib, plan, chosen)

        def done(result: ImportResult) -> None:
            lines = [
                f"{len(result.added)} host(s) added"
                + (f": {', '.join(h.name for h in result.added)}" if result.added else "")
                + f"; {len(result.skipped)} skipped."
            ]
            lines += [f"Skipped {name}: {reason}" for name, reason in result.skipped]
            lines += [f"Warning: {warning}" for warning in result.warnings]
            self.message.show_message("ok" if not result.warnings else "info", "\n".join(lines))
            self._after_change()

        self._call(job, done)

    # -- tools -------------------------------------------------------------------------------

    def install_tool(self, tool: str, host: str | None = None) -> ToolInstallDialog | None:
        """Open the dialog that builds ``tool`` on ``host`` (default: the selected host)."""
        host = host or self.selected_host()
        if host is None:
            return None
        dialog = ToolInstallDialog(self.bridge, host, tool, self)
        dialog.installed.connect(
            lambda result: self.message.show_message(
                "ok", f"{result.tool} on {result.host}: {result.path} ({result.version})"
            )
        )
        dialog.start()
        self._show_dialog(dialog)
        return dialog

    def _install_from_check(self, host: str, tool: str) -> None:
        """The pair check's offer: build the tool, then check the pair again."""
        report = self.check_view.report
        dialog = self.install_tool(tool, host)
        if dialog is not None and report is not None:
            pair = report.pair.name
            dialog.installed.connect(lambda _result: self.check_pair(pair, _again=True))

    # -- check -------------------------------------------------------------------------------

    def check_pair(
        self, name: str | None = None, *, accept_new_host_key: bool = False, _again: bool = False
    ) -> None:
        """Run the selected pair's preflight through the bridge and show the result.

        Passwords and passphrases the check needs are asked, used for this check and its
        re-runs (after they were given, after a host key was accepted), then forgotten at
        the next check: without a keyring they are asked each time.
        """
        name = name or self.selected_pair()
        if name is None or self.checking:
            return
        if not (_again or accept_new_host_key):
            self._forget_secrets()
        self.checking = True
        self._update_buttons()
        what = "accepting new host keys" if accept_new_host_key else "connecting"
        self.check_view.show_busy(f"Checking pair {name} ({what})…")
        secrets = GivenSecrets(self._secrets, self._passphrases)

        async def job(lib: Library) -> CheckReport:
            return await run_check(
                lib, name, accept_new_host_key=accept_new_host_key, secrets=secrets
            )

        def done(report: CheckReport) -> None:
            self.checking = False
            self._update_buttons()
            if self._ask_missing_secrets(report):
                self.check_pair(name, accept_new_host_key=accept_new_host_key, _again=True)
                return
            self.check_view.show_report(report)
            if report.newly_pinned:
                self.refresh()
            self.checkFinished.emit(report)

        def failed(error: BaseException) -> None:
            self.checking = False
            self._forget_secrets()
            self._update_buttons()
            self.check_view.show_failure(f"Cannot check pair {name}: {error_text(error)}")
            self.checkFinished.emit(None)

        self._call(job, done, failed)

    def _forget_secrets(self) -> None:
        self._secrets.clear()
        self._passphrases.clear()

    def accept_host_key(self) -> None:
        """Re-run the last check accepting (and pinning) the unknown host keys it showed."""
        report = self.check_view.report
        if report is not None:
            self.check_pair(report.pair.name, accept_new_host_key=True)

    def _ask_missing_secrets(self, report: CheckReport) -> bool:
        """Ask the passwords and passphrases the check needed; True when all were given."""
        asked = False
        for host in report.needs_password:
            if host.name in self._secrets:
                return False  # given and still refused: show the result
            where = (
                "No OS keyring is available, so it is asked each time and never stored."
                if self.keyring is not None and not self.keyring[0]
                else "No password is stored in the OS keyring for this host."
            )
            secret = self._ask_secret(
                "Password",
                f"Password for {host.user or 'root'}@{host.address} ({host.name}).\n{where}",
            )
            if secret is None:
                return False
            self._secrets[host.name] = secret
            asked = True
        for key_path in report.needs_passphrase:
            if key_path in self._passphrases:
                return False
            secret = self._ask_secret("Key passphrase", f"Passphrase for key {key_path}:")
            if secret is None:
                return False
            self._passphrases[key_path] = secret
            asked = True
        return asked

    def _ask_secret(self, title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Password)
        return text if ok and text else None
