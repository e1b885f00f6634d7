"""Runs that end themselves: a condition, fed every line's records, that may stop the run."""

from __future__ import annotations

from typing import Protocol

from pairbench.domain import Record


class StopCondition(Protocol):
    """Decides, from what a run measured so far, that it has seen enough.

    ``check`` runs on the engine's loop with the records of each line of output (before the
    observer sees them) and must return quickly. A non-empty string ends the run: the engine
    stops the tool's processes and stores the run as ``completed``, with the string as its
    note (e.g. "stopped by the burst probe 30 s after the step"). None lets it go on.
    """

    def check(self, records: list[Record]) -> str | None: ...
