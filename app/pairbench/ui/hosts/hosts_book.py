"""The hosts, pairs and keyring status the hosts panel shows, loaded through the bridge."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.services.hosts import hosts_and_pairs, keyring_status
from pairbench.services.library import Library
from pairbench.ui.hosts.panel_jobs import PanelJobs


def _name(item: Host | HostPair) -> str:
    return item.name


class HostsBook(QObject):
    """The library's hosts and pairs as last read, and whether an OS keyring keeps passwords."""

    loaded = Signal()  # hosts and pairs were (re)read from the library
    hostsChanged = Signal()  # a saved host is known before the reload
    pairsChanged = Signal()  # a saved pair is known before the reload
    keyringKnown = Signal()

    def __init__(self, jobs: PanelJobs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.hosts: list[Host] = []
        self.pairs: list[HostPair] = []
        self.keyring: tuple[bool, str] | None = None  # (available, why not / which)

    def load(self) -> None:
        """Reread hosts and pairs (off the GUI thread); ``loaded`` follows."""

        async def job(lib: Library) -> tuple[list[Host], list[HostPair]]:
            return hosts_and_pairs(lib)

        def done(value: tuple[list[Host], list[HostPair]]) -> None:
            self.hosts, self.pairs = value
            self.loaded.emit()

        self.jobs.call(job, done)

    def load_keyring_status(self) -> None:
        async def job(_lib: Library) -> tuple[bool, str]:
            return keyring_status()

        def done(status: tuple[bool, str]) -> None:
            self.keyring = status
            self.keyringKnown.emit()

        self.jobs.call(job, done)

    @property
    def without_keyring(self) -> bool:
        """Known to have no OS keyring (passwords are asked each time)."""
        return self.keyring is not None and not self.keyring[0]

    def uses_passwords(self) -> bool:
        return any(h.auth is AuthMethod.PASSWORD for h in self.hosts)

    def host(self, name: str | None) -> Host | None:
        return next((h for h in self.hosts if h.name == name), None)

    def pair(self, name: str | None) -> HostPair | None:
        return next((p for p in self.pairs if p.name == name), None)

    def put_host(self, host: Host) -> None:
        """Known at once (the reload follows): a dialog opened right away offers it already."""
        self.hosts = sorted([h for h in self.hosts if h.name != host.name] + [host], key=_name)
        self.hostsChanged.emit()

    def put_pair(self, pair: HostPair) -> None:
        self.pairs = sorted([p for p in self.pairs if p.name != pair.name] + [pair], key=_name)
        self.pairsChanged.emit()
