"""Watching the team library live, the watcher's side: a connection that LISTENs on the live
channel and says which runs changed, and one team run read by its UUID."""

from __future__ import annotations

import time

from pairbench.library.run_rows import runs_from_rows
from pairbench.library.team.live import CHANNEL
from pairbench.library.team.store import _TEAM_COLUMNS, TeamError, TeamRun, TeamStore, _uuid


class LiveListener:
    """Hears the runs published live (and their final publish) on a team server."""

    def __init__(self, store: TeamStore) -> None:
        self.store = store
        with store._errors("listen for live runs"):
            store._conn.execute(f"LISTEN {CHANNEL}")

    def wait(self, timeout_s: float) -> list[str]:
        """The UUIDs notified within ``timeout_s`` (each once, in the order heard; empty
        when none came)."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        heard: dict[str, None] = {}
        with self.store._errors("wait for live runs", max(0.0, timeout_s)):
            while not heard:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                for note in self.store._conn.notifies(timeout=left, stop_after=1):
                    heard[note.payload] = None
            # What else arrived with it, without waiting.
            for note in self.store._conn.notifies(timeout=0.0):
                heard[note.payload] = None
        return list(heard)


def team_run(store: TeamStore, uuid: str) -> TeamRun | None:
    """The team's run with this UUID (its latest copy, when live), or None."""
    key = _uuid(uuid)
    with store._errors("read a run"):
        row = store._conn.execute(
            f"SELECT {_TEAM_COLUMNS} FROM runs WHERE uuid = %s::uuid".encode(), (key,)
        ).fetchone()
    if row is None:
        return None
    [run] = runs_from_rows([row[:-4]])
    return TeamRun(run, str(row[-4]), str(row[-3]), str(row[-2]), float(row[-1]))


__all__ = ["CHANNEL", "LiveListener", "TeamError", "team_run"]
