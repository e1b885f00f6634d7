"""The CLI run in-process with an injected environment: parse, runs list/show/delete, errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from testkit import FIXTURES, require


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def test_parse_prints_the_documented_json_shape(library_path: Path) -> None:
    fixture = FIXTURES / "iperf3" / "tcp_t5_P2.out"
    require(fixture.is_file(), f"fixture missing: {fixture}")
    status, out, err = _cli(library_path, "parse", "iperf3", str(fixture))
    assert status == 0, err
    payload = json.loads(out)
    assert payload["tool"] == "iperf3"
    assert set(payload) >= {"tool", "summary", "series"}
    assert payload["summary"]["throughput_bps"] > 0
    for series in payload["series"]:
        assert set(series) >= {"stream", "metric", "unit", "t", "v"}
        assert len(series["t"]) == len(series["v"]) == 5
    assert not library_path.exists()  # parse stores nothing


def test_parse_missing_file_is_a_clear_error(library_path: Path, tmp_path: Path) -> None:
    status, _, err = _cli(library_path, "parse", "iperf3", str(tmp_path / "nope.out"))
    assert status == 1
    assert "cannot read" in err and "Traceback" not in err


def test_runs_list_show_delete(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = create_run(lib, RunSpec("local", "iperf3", {"duration": "3"}, label="baseline"))
        recorder = Recorder(lib, run_id)
        recorder.add([Record("sum", float(t), ("throughput_bps",), (1e9 + t,)) for t in (1, 2, 3)])
        recorder.flush()
        finish_run(lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e9}, complete=True)

    status, out, _ = _cli(library_path, "runs", "list")
    assert status == 0 and "baseline" in out and "1.00 Gbit/s" in out

    status, out, _ = _cli(library_path, "runs", "list", "--json")
    assert [r["id"] for r in json.loads(out)] == [run_id]

    status, out, _ = _cli(library_path, "runs", "show", str(run_id), "--json")
    shown = json.loads(out)
    assert shown["status"] == "completed" and shown["label"] == "baseline"
    assert shown["summary"] == {"throughput_bps": 1e9}
    assert shown["series"] == [
        {
            "stream": "sum",
            "metric": "throughput_bps",
            "unit": "bit/s",
            "t": [1.0, 2.0, 3.0],
            "v": [1e9 + 1, 1e9 + 2, 1e9 + 3],
        }
    ]

    status, out, _ = _cli(library_path, "runs", "show", str(run_id))
    assert status == 0 and "completed" in out and "3 samples" in out

    status, _, _ = _cli(library_path, "runs", "delete", str(run_id))
    assert status == 0
    status, _, err = _cli(library_path, "runs", "show", str(run_id))
    assert status == 1 and f"no run with id {run_id}" in err


def test_library_option_wins_over_environment(tmp_path: Path) -> None:
    chosen = tmp_path / "chosen.sqlite"
    status, _, _ = _cli(tmp_path / "env.sqlite", "--library", str(chosen), "runs", "list")
    assert status == 0
    assert chosen.exists() and not (tmp_path / "env.sqlite").exists()


def test_not_a_library_is_refused_without_change(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("my notes\n")
    status, _, err = _cli(bogus, "runs", "list")
    assert status == 1
    assert "not a Pairbench library" in err
    assert bogus.read_text() == "my notes\n"


def test_no_command_is_a_usage_error(library_path: Path) -> None:
    status, _, _ = _cli(library_path, "--library", str(library_path))
    assert status == 2


def _live_lines(fixture: str, expected_s: float = 5.0) -> list[str]:
    """What ``run``'s live observer prints for a saved output fed line by line."""
    from pairbench.cli.cmd_run import _LiveObserver
    from pairbench.tools.iperf3_text import Iperf3TextParser

    path = FIXTURES / "iperf3" / fixture
    require(path.is_file(), f"fixture missing: {path}")
    out, err = io.StringIO(), io.StringIO()
    observer = _LiveObserver(Environment(stdout=out, stderr=err, environ={}), to_stderr=False)
    observer.on_started(7, RunSpec("local", "iperf3"), expected_s)
    parser = Iperf3TextParser()
    for line in path.read_text().split("\n"):
        records = parser.feed(line)
        if records:
            observer.on_records(records)
    assert err.getvalue() == ""
    return out.getvalue().splitlines()


def test_live_observer_prints_one_line_per_interval_of_the_sum() -> None:
    lines = _live_lines("tcp_t5_P2.out")
    assert lines[0] == "run 7: iperf3 on local, ~5 s"
    intervals = lines[1:]
    assert len(intervals) == 5  # [SUM] lines only, not the two streams'
    assert intervals[0].startswith("    1.0 s     21.3 Gbit/s  retransmits 6315")
    assert "[####................]  20%" in intervals[0]
    assert intervals[-1].startswith("    5.0 s     21.7 Gbit/s  retransmits 5523")
    assert "[####################] 100%" in intervals[-1]


def test_live_observer_shows_udp_jitter_and_loss() -> None:
    lines = _live_lines("server_oneoff_udp.out")[1:]
    assert len(lines) == 5
    assert lines[0].startswith("    1.0 s     1.78 Gbit/s  jitter_ms 0.023 ms  lost_percent 11.0 %")
