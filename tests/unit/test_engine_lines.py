"""The engine's line handling: raw lines kept, records to the recorder and the observer."""

from __future__ import annotations

from pathlib import Path

from pairbench.domain import LOCAL_PAIR, Line, LineSource, Record, Run, RunSpec, Summary
from pairbench.engine.execute import Prepared
from pairbench.engine.session import RunSession
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run
from pairbench.library.series import load_raw_output, load_series
from pairbench.tools.base import Capabilities
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.registry import get_tool
from testkit import FIXTURES, require


class _Watcher:
    """An observer that keeps what it was told."""

    def __init__(self) -> None:
        self.records: list[list[Record]] = []
        self.lines: list[Line] = []

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        return None

    def on_line(self, line: Line) -> None:
        self.lines.append(line)

    def on_records(self, records: list[Record]) -> None:
        self.records.append(records)

    def on_finished(self, run: Run) -> None:
        return None

    def on_notice(self, text: str) -> None:
        return None


class _BrokenParser:
    """A parser with a bug: its records have fewer values than metrics."""

    def feed(self, line: str) -> list[Record]:
        return [Record("sum", 1.0, ("throughput_bps", "retransmits"), (1e9,))]

    def close(self) -> Summary:
        return Summary(values={}, complete=False)


def _session(lib: Library, parser: Iperf3TextParser | _BrokenParser) -> tuple[RunSession, _Watcher]:
    spec = RunSpec("local", "iperf3")
    run_id = create_run(lib, spec)
    prepared = Prepared(
        spec,
        get_tool("iperf3"),
        LOCAL_PAIR,
        None,  # the transports: line handling does not use them
        None,
        Capabilities(version="iperf 3.12"),
    )
    watcher = _Watcher()
    session = RunSession(prepared, Recorder(lib, run_id), parser, watcher)
    session.parse_sources = (LineSource.CLIENT_OUT, LineSource.CLIENT_ERR)
    return session, watcher


def test_client_lines_become_stored_records_and_observer_calls(library: Library) -> None:
    path = FIXTURES / "iperf3" / "tcp_t5_P2.out"
    require(path.is_file(), f"fixture missing: {path}")
    session, watcher = _session(library, Iperf3TextParser())
    text = path.read_text()
    for line in text.split("\n"):
        session._handle(Line(LineSource.CLIENT_OUT, line, 0.0))
    session._handle(Line(LineSource.SERVER_OUT, "[  5]   9.00-10.00  sec  ...", 0.0))
    assert session.parse_error is None
    assert len(watcher.lines) == len(text.split("\n")) + 1
    assert len(watcher.records) == 15  # one call per interval line: 2 streams + [SUM], 5 times
    assert all(len(records) == 1 for records in watcher.records)
    assert session.recorder.flush() == 5 * (3 + 3 + 2)
    run_id = session.recorder._run_id
    series = {(s.stream, s.metric): s for s in load_series(library, run_id)}
    assert series[("sum", "throughput_bps")].v.tolist() == [21.3e9, 21.5e9, 13.5e9, 16.8e9, 21.7e9]
    assert [source for source, _ in load_raw_output(library, run_id)] == [
        "client.stdout",
        "server.stdout",
    ]


def test_malformed_records_stop_parsing_and_keep_the_raw_output(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        session, watcher = _session(lib, _BrokenParser())
        session._handle(Line(LineSource.CLIENT_OUT, "first", 0.0))
        session._handle(Line(LineSource.CLIENT_OUT, "second", 0.0))
        assert session.parse_error is not None
        assert "iperf3 parser gave malformed records on 'first'" in session.parse_error
        assert watcher.records == []
        assert session.recorder.flush() == 0
        run_id = session.recorder._run_id
        assert load_series(lib, run_id) == []
        assert load_raw_output(lib, run_id) == [("client.stdout", "first\nsecond")]
