"""What a run tells whoever watches it (the CLI's live lines, the GUI's bridge)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from pairbench.domain import Line, Record, Run, RunSpec


class RunObserver(Protocol):
    """Callbacks from the engine thread; implementations must return quickly."""

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None: ...

    def on_line(self, line: Line) -> None: ...

    def on_records(self, records: list[Record]) -> None:
        """The records one line of the tool's output gave (never empty)."""
        ...

    def on_finished(self, run: Run) -> None: ...

    def on_notice(self, text: str) -> None:
        """Something the user must hear while the run goes on (e.g. the tool went quiet)."""
        ...


class NullObserver:
    """An observer that ignores everything."""

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        return None

    def on_line(self, line: Line) -> None:
        return None

    def on_records(self, records: list[Record]) -> None:
        return None

    def on_finished(self, run: Run) -> None:
        return None

    def on_notice(self, text: str) -> None:
        return None


@runtime_checkable
class TelemetryObserver(Protocol):
    """An observer that also wants the hosts' telemetry and the run's verdict (the window's
    Hosts panel and summary); the engine checks for these methods, so other observers need
    not have them."""

    def on_telemetry(self, records: list[Record]) -> None:
        """Records of host telemetry (streams ``client:cpu``, ...), as the samplers give them."""
        ...

    def on_diagnosis(self, payload: Mapping[str, Any]) -> None:
        """The run's verdict (``Diagnosis.payload()``), once stored, before ``on_finished``."""
        ...
