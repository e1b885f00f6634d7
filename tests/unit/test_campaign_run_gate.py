"""With several campaign runs at once, the run observer (the window's live plot) hears one
run at a time: the others' records never reach it, and when the heard run ends another run in
flight is heard from its next records, its start told again."""

from __future__ import annotations

from typing import Any

from pairbench.domain import Record, Run, RunSpec, RunStatus
from pairbench.domain.campaign import RunKey
from pairbench.engine.campaign_control import RunGate


class Heard:
    """A run observer that writes down what it hears."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self.events.append(("started", run_id))

    def on_line(self, line: Any) -> None:
        self.events.append(("line", line))

    def on_records(self, records: list[Record]) -> None:
        self.events.append(("records", records[0].stream))

    def on_finished(self, run: Run) -> None:
        self.events.append(("finished", run.id))

    def on_notice(self, text: str) -> None:
        self.events.append(("notice", text))


def _record(stream: str) -> list[Record]:
    return [Record(stream, 1.0, ("throughput_bps",), (1.0,))]


def _run(run_id: int) -> Run:
    return Run(run_id, RunSpec("p", "ping"), RunStatus.COMPLETED, 0.0, 1.0)


def test_two_runs_at_once_are_heard_one_after_the_other_never_mixed() -> None:
    heard = Heard()
    gate = RunGate(heard)
    a_key, b_key, c_key = RunKey(0, 0, 1, 1), RunKey(1, 0, 1, 1), RunKey(2, 0, 1, 1)
    a, b = gate.for_run(a_key), gate.for_run(b_key)
    assert a is not None and b is not None
    a.on_started(1, RunSpec("p1", "ping"), 5.0)
    b.on_started(2, RunSpec("p2", "ping"), 5.0)
    a.on_records(_record("a"))
    b.on_records(_record("b"))  # not heard: a is
    b.on_notice("b went quiet")
    a.on_finished(_run(1))
    b.on_records(_record("b"))  # heard now
    b.on_finished(_run(2))
    gate.release(b_key)  # the campaign releases every run when it ends: no harm twice
    c = gate.for_run(c_key)
    assert c is not None
    c.on_started(3, RunSpec("p3", "ping"), 5.0)
    c.on_records(_record("c"))
    assert heard.events == [
        ("started", 1),
        ("records", "a"),
        ("finished", 1),
        ("started", 2),  # b's start, told again when it became the one heard
        ("records", "b"),
        ("finished", 2),
        ("started", 3),
        ("records", "c"),
    ]


def test_a_run_that_ends_without_finishing_frees_the_gate() -> None:
    heard = Heard()
    gate = RunGate(heard)
    a_key, b_key = RunKey(0, 0, 1, 1), RunKey(1, 0, 1, 1)
    a = gate.for_run(a_key)
    assert a is not None
    a.on_started(1, RunSpec("p1", "ping"), 5.0)
    gate.release(a_key)  # its task ended by an error: no on_finished came
    b = gate.for_run(b_key)
    assert b is not None
    b.on_started(2, RunSpec("p2", "ping"), 5.0)
    b.on_records(_record("b"))
    assert heard.events[-2:] == [("started", 2), ("records", "b")]
    assert RunGate(None).for_run(a_key) is None
