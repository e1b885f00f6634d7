"""Adding, editing and removing hosts and pairs: the dialogs, the confirmations, the removals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox

from pairbench.domain import Host, HostPair
from pairbench.services.hosts import check_edit_allowed, delete_host
from pairbench.services.library import Library
from pairbench.services.pairs import check_pair_edit_allowed, delete_pair
from pairbench.ui.hosts.host_dialog import HostDialog
from pairbench.ui.hosts.hosts_book import HostsBook
from pairbench.ui.hosts.pair_dialog import PairDialog
from pairbench.ui.hosts.panel_jobs import PanelJobs


class HostEditing(QObject):
    """The hosts panel's edit actions; refusals and outcomes are told in its message bar."""

    # Something was written: (host to select, pair to select) after the reload, "" for none.
    changed = Signal(str, str)

    def __init__(self, jobs: PanelJobs, book: HostsBook, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.book = book

    # -- hosts -------------------------------------------------------------------------------

    def add_host(self) -> HostDialog:
        """Open the host dialog for a new host."""
        return self._open_host_dialog(None)

    def edit_host(self, name: str | None) -> HostDialog | None:
        """Open the host dialog for host ``name`` (the built-in one is refused)."""
        host = self.book.host(name)
        if host is None:
            return None
        try:
            check_edit_allowed(host)
        except ValueError as exc:
            self.jobs.say("error", str(exc))
            return None
        return self._open_host_dialog(host)

    def _open_host_dialog(self, host: Host | None) -> HostDialog:
        dialog = HostDialog(
            self.jobs.bridge,
            hosts=self.book.hosts,
            keyring=self.book.keyring,
            host=host,
            parent=self.jobs.owner,
        )
        dialog.accepted.connect(lambda: self._host_saved(dialog, host is None))
        self.jobs.open_dialog(dialog)
        return dialog

    def _host_saved(self, dialog: HostDialog, added: bool) -> None:
        host, notes = dialog.result_value
        old = dialog.editing.name if dialog.editing is not None else host.name
        if old != host.name:  # renamed: pairs and jumps name it anew, so all is read again
            self.book.hosts = [h for h in self.book.hosts if h.name != old]
            self.book.load()
        self.book.put_host(host)
        if added:
            said = f"Added host {host.name}."
        elif old != host.name:
            said = f"Renamed host {old} to {host.name}."
        else:
            said = f"Updated host {host.name}."
        self.jobs.say("ok", "\n".join([said] + [f"Note: {n}" for n in notes]))
        self.changed.emit(host.name, "")

    def remove_host(self, name: str | None) -> None:
        """Remove host ``name`` after confirmation; refusals are shown in the panel."""
        host = self.book.host(name)
        if host is None:
            return
        pairs, hosts = self.book.pairs, self.book.hosts
        used = [p.name for p in pairs if host.name in (p.client.name, p.server.name)]
        jumped = [h.name for h in hosts if h.jump == host.name]
        refused = host.is_local or used or jumped  # the service says why, in the CLI's words
        if not refused and not self._confirm(
            "Remove host",
            f"Remove host {host.name} ({host.address})? Its pinned host keys and any stored "
            "password are forgotten. Runs already made are kept.",
        ):
            return
        removed = host.name

        async def job(lib: Library) -> Host:
            return delete_host(lib, removed)

        def done(_host: Host) -> None:
            self.jobs.say("ok", f"Removed host {removed}.")
            self.changed.emit("", "")

        self.jobs.call(job, done)

    # -- pairs -------------------------------------------------------------------------------

    def add_pair(self) -> PairDialog:
        """Open the pair dialog for a new pair."""
        return self._open_pair_dialog(None)

    def edit_pair(self, name: str | None) -> PairDialog | None:
        """Open the pair dialog for pair ``name`` (the built-in one is refused)."""
        pair = self.book.pair(name)
        if pair is None:
            return None
        try:
            check_pair_edit_allowed(pair.name)
        except ValueError as exc:
            self.jobs.say("error", str(exc))
            return None
        return self._open_pair_dialog(pair)

    def _open_pair_dialog(self, pair: HostPair | None) -> PairDialog:
        dialog = PairDialog(
            self.jobs.bridge, hosts=self.book.hosts, pair=pair, parent=self.jobs.owner
        )

        def saved() -> None:
            new: HostPair = dialog.result_value
            self.book.put_pair(new)
            words = "Added" if pair is None else "Updated"
            self.jobs.say(
                "ok",
                f"{words} pair {new.name}: {new.client.name} → {new.server.name} "
                f"({new.target_address}).",
            )
            self.changed.emit("", new.name)

        dialog.accepted.connect(saved)
        self.jobs.open_dialog(dialog)
        return dialog

    def remove_pair(self, name: str | None) -> None:
        """Remove pair ``name`` after confirmation (its runs stay)."""
        pair = self.book.pair(name)
        if pair is None:
            return
        if pair.name != "local" and not self._confirm(
            "Remove pair",
            f"Remove pair {pair.name} ({pair.client.name} → {pair.server.name})? "
            "Its runs stay in the library.",
        ):
            return
        removed = pair.name

        async def job(lib: Library) -> None:
            delete_pair(lib, removed)

        def done(_value: None) -> None:
            self.jobs.say("ok", f"Removed pair {removed} (its runs stay in the library).")
            self.changed.emit("", "")

        self.jobs.call(job, done)

    def _confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(
            self.jobs.owner,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes
