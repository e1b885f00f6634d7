"""What the campaign and suite followers share: an engine job's outcome relayed, and records.

An engine job's outcome or failure goes to the GUI thread by signals; their run observers
share the part that only relays records.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Protocol

from PySide6.QtCore import SignalInstance

from pairbench.domain import Line, Record, Run
from pairbench.ui.run.error_line import friendly_error


async def relay_outcome(
    outcome: Awaitable[object],
    finished: SignalInstance,
    failed: SignalInstance,
    known: tuple[type[Exception], ...],
    special: Mapping[type[Exception], SignalInstance] | None = None,
) -> None:
    """Await ``outcome`` on the engine thread: ``finished`` with it, or ``failed`` with why (a
    ``known`` failure in the user's words; any other error named, never lost silently); an
    error of a ``special`` type goes, itself, to its own signal."""
    try:
        result = await outcome
    except Exception as exc:
        for kind, signal in (special or {}).items():
            if isinstance(exc, kind):
                signal.emit(exc)
                return
        if isinstance(exc, known):
            failed.emit(friendly_error(str(exc)))
        else:
            failed.emit(f"{type(exc).__name__}: {exc}")
        return
    finished.emit(result)


class _RecordsRelay(Protocol):
    @property
    def records(self) -> SignalInstance: ...


class RecordsObserver:
    """A run observer that relays the records of the run in flight (its lines and its end
    are the engine's and the library's business)."""

    def __init__(self, relay: _RecordsRelay) -> None:
        self._records = relay.records

    def on_line(self, line: Line) -> None:
        return None

    def on_records(self, records: list[Record]) -> None:
        self._records.emit(records)

    def on_finished(self, run: Run) -> None:
        return None
