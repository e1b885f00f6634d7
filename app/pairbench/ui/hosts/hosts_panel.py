"""The hosts and pairs panel: composes the hosts list, the pairs list, their actions and the
pair check.

Every read and write goes through the bridge (the engine thread's library connection); the
panel only draws. Errors and refusals appear in the panel's message bar, never as a traceback.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QSplitter, QVBoxLayout, QWidget

from pairbench.domain import Host, HostPair
from pairbench.services.tool_install import InstallResult
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.check_view import CheckView
from pairbench.ui.hosts.editing import HostEditing
from pairbench.ui.hosts.host_dialog import HostDialog
from pairbench.ui.hosts.hosts_book import HostsBook
from pairbench.ui.hosts.hosts_list import HostsList
from pairbench.ui.hosts.pair_check_box import PairCheckBox
from pairbench.ui.hosts.pair_dialog import PairDialog
from pairbench.ui.hosts.pairs_list import PairsList
from pairbench.ui.hosts.panel_jobs import PanelJobs
from pairbench.ui.hosts.ssh_config_import import SshConfigImport
from pairbench.ui.hosts.tool_install_dialog import ToolInstallDialog
from pairbench.ui.library.message_bar import MessageBar


class HostsPanel(QWidget):
    """Hosts and pairs of the library, and the check of a pair."""

    changed = Signal()  # hosts or pairs were added, edited or removed
    refreshed = Signal()  # the lists were (re)loaded
    checkFinished = Signal(object)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.message = MessageBar()
        self.jobs = PanelJobs(self, bridge, self.message)
        self.book = HostsBook(self.jobs, self)
        self.hosts_list = HostsList()
        self.pairs_list = PairsList()
        self.pair_check = PairCheckBox(self.jobs, self.book)
        self.editing = HostEditing(self.jobs, self.book, self)
        self.ssh_import = SshConfigImport(self.jobs, self.hosts_list.import_button, self)

        self.book.loaded.connect(self._loaded)
        self.book.hostsChanged.connect(lambda: self.hosts_list.show_hosts(self.hosts))
        self.book.pairsChanged.connect(lambda: self.pairs_list.show_pairs(self.pairs))
        self.book.keyringKnown.connect(self._show_keyring)
        self.hosts_list.addRequested.connect(self.add_host)
        self.hosts_list.editRequested.connect(self.edit_host)
        self.hosts_list.removeRequested.connect(self.remove_host)
        self.hosts_list.importRequested.connect(lambda: self.import_ssh_config())
        self.hosts_list.installRequested.connect(lambda tool: self.install_tool(tool))
        self.pairs_list.addRequested.connect(self.add_pair)
        self.pairs_list.editRequested.connect(self.edit_pair)
        self.pairs_list.removeRequested.connect(self.remove_pair)
        self.pairs_list.checkRequested.connect(lambda: self.check_pair())
        self.editing.changed.connect(self._after_change)
        self.ssh_import.imported.connect(lambda: self._after_change("", ""))
        self.pair_check.busyChanged.connect(self.pairs_list.set_checking)
        self.pair_check.keysPinned.connect(self.refresh)
        self.pair_check.finished.connect(self.checkFinished)
        self.pair_check.view.installRequested.connect(self._install_from_check)

        lists = QSplitter(Qt.Orientation.Horizontal)
        lists.setObjectName("hosts_lists_split")
        lists.addWidget(self.hosts_list)
        lists.addWidget(self.pairs_list)
        lists.setStretchFactor(0, 1)
        lists.setStretchFactor(1, 1)
        lists.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("hosts_split")
        self.splitter.addWidget(lists)
        self.splitter.addWidget(self.pair_check)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.splitter, 1)

        self.refresh()
        self.book.load_keyring_status()

    # -- what the panel shows ----------------------------------------------------------------

    @property
    def hosts(self) -> list[Host]:
        return self.book.hosts

    @property
    def pairs(self) -> list[HostPair]:
        return self.book.pairs

    @property
    def keyring(self) -> tuple[bool, str] | None:
        """(available, why not / which) once known: whether an OS keyring keeps passwords."""
        return self.book.keyring

    @property
    def dialog(self) -> QDialog | None:
        """The open add/edit/import/install dialog, if any."""
        return self.jobs.dialog

    @property
    def check_view(self) -> CheckView:
        return self.pair_check.view

    @property
    def checking(self) -> bool:
        return self.pair_check.checking

    def refresh(self) -> None:
        """Reload hosts and pairs (off the GUI thread); ``refreshed`` follows."""
        self.book.load()

    def _loaded(self) -> None:
        selected_host = self.selected_host()
        selected_pair = self.selected_pair()
        self.hosts_list.show_hosts(self.hosts)
        self.pairs_list.show_pairs(self.pairs)
        self.hosts_list.select(selected_host)
        self.pairs_list.select(selected_pair or (self.pairs[0].name if self.pairs else None))
        self._show_keyring()
        self.refreshed.emit()

    def _show_keyring(self) -> None:
        self.hosts_list.show_keyring(self.keyring, self.book.uses_passwords())

    def selected_host(self) -> str | None:
        return self.hosts_list.selected()

    def selected_pair(self) -> str | None:
        return self.pairs_list.selected()

    def select_host(self, name: str) -> None:
        self.hosts_list.select(name)

    def select_pair(self, name: str) -> None:
        self.pairs_list.select(name)

    def _after_change(self, select_host: str, select_pair: str) -> None:
        """Reload after a write, then select what was saved; tell the window."""

        def reselect() -> None:
            self.refreshed.disconnect(reselect)
            if select_host:
                self.select_host(select_host)
            if select_pair:
                self.select_pair(select_pair)

        self.refreshed.connect(reselect)
        self.refresh()
        self.changed.emit()

    # -- actions -----------------------------------------------------------------------------

    def add_host(self) -> HostDialog:
        return self.editing.add_host()

    def edit_host(self) -> HostDialog | None:
        return self.editing.edit_host(self.selected_host())

    def remove_host(self) -> None:
        self.editing.remove_host(self.selected_host())

    def add_pair(self) -> PairDialog:
        return self.editing.add_pair()

    def edit_pair(self) -> PairDialog | None:
        return self.editing.edit_pair(self.selected_pair())

    def remove_pair(self) -> None:
        self.editing.remove_pair(self.selected_pair())

    def import_ssh_config(self, path: Path | None = None) -> None:
        """Read an OpenSSH config (default ~/.ssh/config) and preview the hosts it gives."""
        self.ssh_import.start(path)

    def install_tool(self, tool: str, host: str | None = None) -> ToolInstallDialog | None:
        """Open the dialog that builds ``tool`` on ``host`` (default: the selected host)."""
        host = host or self.selected_host()
        if host is None:
            return None
        dialog = ToolInstallDialog(self.bridge, host, tool, self)
        dialog.installed.connect(self._tool_installed)
        dialog.start()
        self.jobs.open_dialog(dialog)
        return dialog

    def _tool_installed(self, result: InstallResult) -> None:
        self.jobs.say("ok", f"{result.tool} on {result.host}: {result.path} ({result.version})")

    def _install_from_check(self, host: str, tool: str) -> None:
        """The pair check's offer: build the tool, then check the pair again."""
        report = self.check_view.report
        dialog = self.install_tool(tool, host)
        if dialog is not None and report is not None:
            pair = report.pair.name
            dialog.installed.connect(lambda _result: self.pair_check.check(pair, again=True))

    def check_pair(self, name: str | None = None, *, accept_new_host_key: bool = False) -> None:
        """Check pair ``name`` (default: the selected one); ``checkFinished`` carries the
        report (None when the check could not run)."""
        name = name or self.selected_pair()
        if name is not None:
            self.pair_check.check(name, accept_new_host_key=accept_new_host_key)

    def accept_host_key(self) -> None:
        """Re-run the last check accepting (and pinning) the unknown host keys it showed."""
        self.pair_check.accept_host_key()
