"""While the window is open on a library that publishes to its team library automatically:
the runs it records are published live, and its outbox as runs finish (a thread of its own,
``services.team_live.LivePublisher``: the GUI and engine threads never wait on the server)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from pairbench.services.library import Library
from pairbench.services.team_live import LivePublisher, LiveTarget, live_target
from pairbench.ui.bridge import EngineBridge


class TeamSync(QObject):
    """Starts the live publisher once the library's settings are read (engine thread)."""

    def __init__(self, bridge: EngineBridge, library: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.library = library
        self.publisher: LivePublisher | None = None
        self.refresh()

    def refresh(self, _url: str = "") -> None:
        """Read the settings again (after File ▸ Team library… connected a server)."""

        async def job(lib: Library) -> LiveTarget | None:
            return live_target(lib)

        self.bridge.call(job, self._start, lambda _error: None)

    def _start(self, target: LiveTarget | None) -> None:
        if self.publisher is not None and (target is None or target != self.publisher.target):
            self.stop()  # another server, or no longer automatic
        if target is not None and self.publisher is None:
            self.publisher = LivePublisher(self.library, target).start()

    def stop(self) -> None:
        """Stop publishing (the window closes); what waits goes with the next session."""
        if self.publisher is not None:
            self.publisher.stop()
            self.publisher = None
