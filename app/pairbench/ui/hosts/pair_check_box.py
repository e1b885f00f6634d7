"""The "Pair check" box: runs a pair's preflight through the bridge and shows its result."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from pairbench.services.library import Library
from pairbench.services.pair_check import CheckReport, run_check
from pairbench.ui.hosts.check_secrets import CheckSecrets
from pairbench.ui.hosts.check_view import CheckView
from pairbench.ui.hosts.hosts_book import HostsBook
from pairbench.ui.hosts.panel_jobs import PanelJobs
from pairbench.ui.library.jobs import error_text


class PairCheckBox(QGroupBox):
    """One check at a time; an unknown host key is accepted from the result (re-run pinning it)."""

    finished = Signal(object)  # CheckReport, or None when the check itself failed
    busyChanged = Signal(bool)
    keysPinned = Signal()  # the check pinned new host keys (the hosts changed)

    def __init__(self, jobs: PanelJobs, book: HostsBook, parent: QWidget | None = None) -> None:
        super().__init__("Pair check", parent)
        self.jobs = jobs
        self.book = book
        self.checking = False
        self.secrets = CheckSecrets(jobs.owner)
        self.view = CheckView()
        self.view.acceptKeyRequested.connect(self.accept_host_key)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)

    def check(self, name: str, *, accept_new_host_key: bool = False, again: bool = False) -> None:
        """Check pair ``name`` and show the result.

        Passwords and passphrases the check needs are asked, used for this check and its
        re-runs (``again``: after they were given, after a host key was accepted), then
        forgotten at the next check.
        """
        if self.checking:
            return
        if not (again or accept_new_host_key):
            self.secrets.forget()
        self._set_checking(True)
        what = "accepting new host keys" if accept_new_host_key else "connecting"
        self.view.show_busy(f"Checking pair {name} ({what})…")
        secrets = self.secrets.given()

        async def job(lib: Library) -> CheckReport:
            return await run_check(
                lib, name, accept_new_host_key=accept_new_host_key, secrets=secrets
            )

        def done(report: CheckReport) -> None:
            self._set_checking(False)
            if self.secrets.ask_missing(report, without_keyring=self.book.without_keyring):
                self.check(name, accept_new_host_key=accept_new_host_key, again=True)
                return
            self.view.show_report(report)
            if report.newly_pinned:
                self.keysPinned.emit()
            self.finished.emit(report)

        def failed(error: BaseException) -> None:
            self._set_checking(False)
            self.secrets.forget()
            self.view.show_failure(f"Cannot check pair {name}: {error_text(error)}")
            self.finished.emit(None)

        self.jobs.call(job, done, failed)

    def accept_host_key(self) -> None:
        """Re-run the last check accepting (and pinning) the unknown host keys it showed."""
        report = self.view.report
        if report is not None:
            self.check(report.pair.name, accept_new_host_key=True)

    def _set_checking(self, checking: bool) -> None:
        self.checking = checking
        self.busyChanged.emit(checking)
